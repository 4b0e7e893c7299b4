-- End-to-end test of `:Kernelscope profile` and `:Kernelscope run`: a kernel on a GPU through
-- the `gpu.runner` option, answered by tests/gpu/fake/fake-gpu-runner.py with results
-- recorded on an H200. The profile's progress is shown, the hot line gets the server's hint
-- (`90% stalls · long scoreboard`) and a heat highlight, the PTX view's lines the heat of the
-- source line they map to; the first edit clears all of it. Then the coalescing fix of
-- tests/fixtures/gpu/coalesce profiled before and after the edit (each profile is kept): the
-- second profile's hint says the load and store line stalls 75% less since the last profile,
-- and `:Kernelscope heat delta` colours it as better.
--
-- Runs in `nvim --headless --clean` (see run.sh) on a writable copy of examples/saxpy.rs.
-- Environment: KERNELSCOPE_BIN, KS_SOURCE, KS_ROOT (the checkout), KS_RESULTS, KS_TIMEOUT_MS,
-- KS_SCALE (a writable copy of the fixture's before.rs, never profiled before).
local server = assert(os.getenv("KERNELSCOPE_BIN"), "KERNELSCOPE_BIN is not set")
local saxpy = assert(os.getenv("KS_SOURCE"), "KS_SOURCE is not set")
local root = assert(os.getenv("KS_ROOT"), "KS_ROOT is not set")
local HOT_LINE = "*y.add(i) = a * *x.add(i) + *y.add(i);"

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness("profile")
local check, wait_for, line_of, compile_timeout = t.check, t.wait_for, t.line_of, t.compile_timeout

local notified = {}
vim.notify = function(msg, level)
  table.insert(notified, { msg = tostring(msg), level = level })
end

--- The lines of `buf` with an extmark in `ns`, and the virtual texts there.
local function marks(buf, ns)
  local lines, texts = {}, {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    lines[m[2]] = true
    for _, chunk in ipairs((m[4] or {}).virt_text or {}) do
      texts[m[2]] = (texts[m[2]] or "") .. chunk[1]
    end
  end
  return lines, texts
end

local function notified_with(text)
  for _, n in ipairs(notified) do
    if n.msg:find(text, 1, true) then
      return n
    end
  end
end

local function run()
  local ks = require("kernelscope")
  local lsp = require("kernelscope.lsp")
  local views = require("kernelscope.views")
  local profile = require("kernelscope.profile")
  local annotations = require("kernelscope.annotations")
  local fake = root .. "/tests/gpu/fake/fake-gpu-runner.py"
  ks.setup({
    cmd = { server },
    gpu = { runner = fake .. " --mode profile " .. root .. "/tests/golden/gpu/saxpy.profile.result" },
  })

  local src, _, client = t.open_source(saxpy)
  if not client then
    return
  end
  local hot = line_of(src, HOT_LINE)
  check("saxpy compiles: its instruction counts are drawn", wait_for(function()
    local _, texts = marks(src, annotations.ns)
    return texts[hot] and texts[hot]:find("sass")
  end, compile_timeout))
  vim.cmd("Kernelscope ptx")
  local ptx = wait_for(function()
    local v = views.find(src, "ptx")
    return v and next(v.by_view or {}) and v
  end, compile_timeout)
  check("the PTX view is open", ptx ~= nil)
  vim.cmd("wincmd p")

  vim.cmd("Kernelscope profile")
  check("the profile reports its progress", wait_for(function()
    return profile.progress[#profile.progress] == "end: done"
  end, compile_timeout), vim.inspect(profile.progress))
  check("progress says it compiles and profiles with ncu",
    vim.tbl_contains(profile.progress, "report: compiling saxpy.rs")
      and #vim.tbl_filter(function(p)
        return p:find("report: profiling saxpy with ncu on", 1, true) ~= nil
      end, profile.progress) == 1, vim.inspect(profile.progress))
  check("the hot line gets the server's hint", wait_for(function()
    local _, texts = marks(src, annotations.ns)
    return texts[hot] and texts[hot]:find("90% stalls · long scoreboard", 1, true)
  end, 10000), vim.inspect(select(2, marks(src, annotations.ns))))
  local heat = marks(src, profile.ns)
  check("the hot line is coloured by heat", heat[hot] == true, vim.inspect(heat))
  check("the hottest line has the hottest colour", profile.heat(src, hot) == profile.levels[#profile.levels],
    tostring(profile.heat(src, hot)))
  local ptx_heat = marks(ptx.bufnr, profile.ns)
  local mapped = 0
  for vline in pairs(ptx_heat) do
    if ptx.by_view[vline] == hot then
      mapped = mapped + 1
    end
  end
  check("PTX lines of the hot line are coloured too", mapped > 0, vim.inspect(ptx_heat))
  check("every coloured PTX line maps to a profiled source line", (function()
    for vline in pairs(ptx_heat) do
      if not vim.tbl_contains(profile.hot_lines(src), ptx.by_view[vline]) then
        return false
      end
    end
    return true
  end)())
  check("the user is told the hottest line",
    notified_with("saxpy: line " .. (hot + 1) .. " 90% stalls · long scoreboard") ~= nil, vim.inspect(notified))

  -- The first edit clears the hints and the heat, in the source and the view.
  vim.api.nvim_buf_set_lines(src, hot, hot, false, { "        // an edit" })
  check("an edit clears the heat", wait_for(function()
    return next((marks(src, profile.ns))) == nil and next((marks(ptx.bufnr, profile.ns))) == nil
  end, 5000))
  check("an edit clears the profile's hints, and they do not come back", (function()
    -- The next compile draws the counts again, without the profile.
    local ok = wait_for(function()
      local _, texts = marks(src, annotations.ns)
      return texts[hot + 1] and texts[hot + 1]:find("sass")
    end, compile_timeout)
    local _, texts = marks(src, annotations.ns)
    for _, text in pairs(texts) do
      if text:find("stalls", 1, true) then
        return false
      end
    end
    return ok
  end)())

  -- A run: the figures, in one message.
  lsp.notify_server(client, "workspace/didChangeConfiguration", {
    settings = { kernelscope = { gpuRunner = fake .. " --mode run " .. root .. "/tests/golden/gpu/saxpy.run.result" } },
  })
  vim.cmd("Kernelscope run saxpy")
  check("a run tells its time and bandwidth", wait_for(function()
    return notified_with("saxpy on NVIDIA H200:") and notified_with("us median over 20 runs")
  end, compile_timeout), vim.inspect(notified))

  -- Profile baselines: before the coalescing fix, then after it.
  local function runner(result)
    lsp.notify_server(client, "workspace/didChangeConfiguration", {
      settings = { kernelscope = { gpuRunner = fake .. " --mode profile " .. root .. "/tests/golden/gpu/" .. result } },
    })
  end
  local function profile_once(buf, kernel)
    local before = #profile.progress
    vim.cmd("Kernelscope profile " .. kernel)
    return wait_for(function()
      return #profile.progress > before and profile.progress[#profile.progress] == "end: done"
    end, compile_timeout)
  end
  runner("scale_matrix_before.profile.result")
  local scale = t.open_source(assert(os.getenv("KS_SCALE"), "KS_SCALE is not set"))
  local store = "*out.add(at) = 2.0 * *a.add(at);"
  check("scale.rs compiles", wait_for(function()
    local _, texts = marks(scale, annotations.ns)
    local l = line_of(scale, store)
    return l and texts[l] and texts[l]:find("sass")
  end, compile_timeout))
  check("the first profile of scale_matrix", profile_once(scale, "scale_matrix"), vim.inspect(profile.progress))
  check("a first profile has no change to show", wait_for(function()
    return profile.heat(scale, line_of(scale, store)) ~= nil
  end, 10000) and profile.delta(scale, line_of(scale, store)) == nil)
  check("without an earlier profile there is no delta heat", profile.delta_heat(scale, true) == false)

  -- The fix, as the user would type it: after.rs's text.
  local after = vim.fn.readfile(root .. "/tests/fixtures/gpu/coalesce/after.rs")
  vim.api.nvim_buf_set_lines(scale, 0, -1, false, after)
  local moved = line_of(scale, store)
  check("the fixed scale.rs compiles", wait_for(function()
    local _, texts = marks(scale, annotations.ns)
    return texts[moved] and texts[moved]:find("sass") and not texts[moved]:find("stalls", 1, true)
  end, compile_timeout))
  runner("scale_matrix_after.profile.result")
  check("the second profile of scale_matrix", profile_once(scale, "scale_matrix"), vim.inspect(profile.progress))
  local hint = "−75% stalls since last profile"
  check("the moved load and store line says what changed since the last profile", wait_for(function()
    local _, texts = marks(scale, annotations.ns)
    return texts[moved] and texts[moved]:find(hint, 1, true)
  end, 10000), vim.inspect(select(2, marks(scale, annotations.ns))))
  local d = profile.delta(scale, moved)
  check("its change is the server's", d and d.hint == hint and d.stallChange < -0.7, vim.inspect(d))
  check("the user is told the hottest line's change", notified_with(hint) ~= nil, vim.inspect(notified))
  check("heat delta turns the delta heat on", profile.delta_heat(scale, true) == true)
  check("the line that got better is coloured as better", wait_for(function()
    return marks(scale, profile.ns)[moved] and profile.heat(scale, moved) == profile.better[2]
  end, 5000), tostring(profile.heat(scale, moved)))
  vim.cmd("Kernelscope heat profile")
  check("heat profile brings the profile's heat back",
    profile.heat(scale, moved) == profile.levels[#profile.levels], tostring(profile.heat(scale, moved)))
end

t.run(run)
