-- End-to-end test of the kernelscope Neovim plugin against the real server.
--
-- Runs inside `nvim --headless` (see run.sh). It drives the plugin the way a user does,
-- through `:Kernelscope` and typed keys, and checks the result against the server's own
-- answers (kernelscope/lineMap). The steps run in a coroutine that yields to Neovim's main
-- loop between them, so typed keys are processed and CursorMoved fires as when a user
-- types them. Prints one `ok`/`not ok` line per check and a `N passed, N failed` summary.
--
-- Environment: KERNELSCOPE_BIN (the server), KS_SOURCE (a writable copy of
-- examples/saxpy.rs), KS_RESULTS (where the result lines go), KS_TIMEOUT_MS (how long to
-- wait for a compile).
local server = assert(os.getenv("KERNELSCOPE_BIN"), "KERNELSCOPE_BIN is not set")
local source_path = assert(os.getenv("KS_SOURCE"), "KS_SOURCE is not set")
local compile_timeout = tonumber(os.getenv("KS_TIMEOUT_MS") or "") or 240000

local SAXPY_LINE = "*y.add(i) = a * *x.add(i) + *y.add(i);"
-- The test starts at this target (through the settings) and switches to the next live.
local FIRST_ARCH, NEXT_ARCH = "sm_75", "sm_90"
-- An instruction of each stage of the SAXPY kernel (a Lua pattern on the view's line) and
-- what the hover on it must say: the opcode and its meaning, modifiers decoded.
local HOVERS = {
  { stage = "ptx", line = "^%s*ld%.global%.", says = { "ld", ".global", "global memory" } },
  { stage = "sass", line = "%f[%w]LDG%f[^%w]", says = { "LDG", "Load from global memory", "values: ", " used by the " } },
  { stage = "llvm-ir", line = "= fmul ", says = { "fmul", "Floating-point multiplication" } },
  { stage = "mir", line = "= Mul%(", says = { "Mul", "Multiplication" } },
}

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness()
local out, check, sleep, wait_for = t.out, t.check, t.sleep, t.wait_for
local function feed(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "m", false)
end

local function buf_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end
local function win_of(buf)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
end
local function floating_text()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      return buf_text(vim.api.nvim_win_get_buf(win)), win
    end
  end
end
local function close_floats()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      vim.api.nvim_win_close(win, true)
    end
  end
end
-- 0-based lines of `buf` that carry a kernelscope highlight.
local function highlighted(buf, ns)
  local set = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {})) do
    set[mark[2]] = true
  end
  local lines = vim.tbl_keys(set)
  table.sort(lines)
  return lines
end
local function expand(ranges)
  local set = {}
  for _, r in ipairs(ranges or {}) do
    for l = r.start, r["end"] do
      set[l] = true
    end
  end
  local lines = vim.tbl_keys(set)
  table.sort(lines)
  return lines
end
local function same(a, b)
  return vim.inspect(a) == vim.inspect(b)
end
-- True when the highlighted view lines `got` are the instructions of `expected` (from
-- kernelscope/lineMap): every expected line is highlighted, and any other highlighted
-- line is one the server maps to no source at all (a `.loc` or label inside the run).
local function same_instructions(client, src, view, got, expected)
  local want = {}
  for _, l in ipairs(expected) do
    want[l] = true
  end
  local have = {}
  for _, l in ipairs(got) do
    have[l] = true
  end
  for l in pairs(want) do
    if not have[l] then
      return false
    end
  end
  local lsp = require("kernelscope.lsp")
  for l in pairs(have) do
    if not want[l] then
      local filters = require("kernelscope.views").filters()
      local r = lsp.request_sync(client, lsp.methods.source_location, { uri = view.uri, line = l, filters = filters }, 5000, src)
      if not r or (r.location ~= nil and r.location ~= vim.NIL) then
        return false
      end
    end
  end
  return true
end

-- The messages the plugin gives through vim.notify, in order.
local notified = {}
local real_notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(notified, { msg = tostring(msg), level = level })
  return real_notify(msg, level, opts)
end
local function messages_with(text)
  local found = {}
  for _, n in ipairs(notified) do
    if n.msg:find(text, 1, true) then
      table.insert(found, n)
    end
  end
  return found
end

-- The title of the source's code lens that carries the kernel's resources.
local function resource_lens(src)
  for _, l in ipairs(vim.lsp.codelens.get(src) or {}) do
    if l.command and l.command.title:find("regs") then
      return l.command.title
    end
  end
end

-- Presses K where the cursor is and returns the hover's text (nil when none comes).
local function press_k()
  close_floats()
  feed("K")
  return wait_for(function()
    local t = floating_text()
    return t and t ~= "" and t
  end, 10000)
end

-- Puts the cursor of view `v` on its first line matching `pattern`, presses K there and
-- returns the hover's text and the line.
local function hover_in_view(v, pattern)
  local lines = vim.api.nvim_buf_get_lines(v.bufnr, 0, -1, false)
  local at
  for i, l in ipairs(lines) do
    if l:find(pattern) then
      at = i
      break
    end
  end
  local win = win_of(v.bufnr)
  if not (at and win) then
    return nil, at and "the view is not shown" or ("no line matches " .. pattern)
  end
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_cursor(win, { at, (lines[at]:find("%S") or 1) - 1 })
  local text = press_k()
  close_floats()
  return text, lines[at]
end

local function run()
  local ks = require("kernelscope")
  local lsp = require("kernelscope.lsp")
  local views = require("kernelscope.views")
  -- The arch switch is read from the PTX's `.target` line, which the directives filter hides.
  ks.setup({ cmd = { server }, settings = { arch = FIRST_ARCH }, filters = { directives = false } })

  vim.cmd("edit " .. vim.fn.fnameescape(source_path))
  local src = vim.api.nvim_get_current_buf()
  local src_win = vim.api.nvim_get_current_win()
  local uri = vim.uri_from_bufnr(src)

  local client = wait_for(function()
    local c = lsp.client(src)
    return c and c.initialized and c
  end, 20000)
  if not check("server starts and attaches to the kernel source", client ~= nil) then
    return
  end
  check("K is mapped to hover in the source buffer", vim.fn.maparg("K", "n") ~= "")

  local ready = wait_for(function()
    local st = views.status[uri]
    return st and (st.state == "ready" or st.state == "failed") and st
  end, compile_timeout)
  if not check("kernelscope/status reports the first compile ready", ready and ready.state == "ready", ready and ready.message or "timed out") then
    return
  end

  -- Instruction counts at the end of the SAXPY line, and the kernel's code lens.
  local hints = require("kernelscope.annotations")
  local saxpy_line
  for i, l in ipairs(vim.api.nvim_buf_get_lines(src, 0, -1, false)) do
    if l:find(SAXPY_LINE, 1, true) then
      saxpy_line = i - 1
    end
  end
  local hint = wait_for(function()
    for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(src, hints.ns, 0, -1, { details = true })) do
      if mark[2] == saxpy_line then
        return mark[4].virt_text[1][1]
      end
    end
  end, 10000)
  check("the SAXPY line shows its instruction counts", hint and hint:find("%d+ ptx") ~= nil, tostring(hint))
  local lens = wait_for(function()
    return resource_lens(src)
  end, 10000)
  check("the kernel has a code lens with its registers", lens ~= nil)
  check("the code lens names the target from the settings, " .. FIRST_ARCH, lens and lens:find(FIRST_ARCH, 1, true) ~= nil, lens)
  check("no change is told for the first compile", #messages_with("PTX") == 0, vim.inspect(notified))

  -- :Kernelscope ptx opens a scratch view holding the PTX.
  vim.cmd("Kernelscope ptx")
  local view = views.find(src, "ptx")
  check(":Kernelscope ptx opens a view", view ~= nil)
  if not view then
    return
  end
  local vbuf = view.bufnr
  local has_ptx = wait_for(function()
    return buf_text(vbuf):find("%.entry%s+saxpy") ~= nil
  end, 20000)
  check("the view holds the PTX of saxpy", has_ptx, buf_text(vbuf):sub(1, 200))
  check("the view is a nofile, read-only buffer", vim.bo[vbuf].buftype == "nofile" and not vim.bo[vbuf].modifiable)
  check("the view has the PTX filetype", vim.bo[vbuf].filetype == "kernelscope_ptx", vim.bo[vbuf].filetype)
  check("the view is shown in a split next to the source", win_of(vbuf) ~= nil and win_of(src) ~= nil)
  check("focus stays in the source", vim.api.nvim_get_current_buf() == src)

  -- Moving the cursor to the SAXPY line highlights exactly that line's PTX lines.
  local saxpy
  for i, line in ipairs(vim.api.nvim_buf_get_lines(src, 0, -1, false)) do
    if line:find(SAXPY_LINE, 1, true) then
      saxpy = i - 1
    end
  end
  check("the SAXPY line is in the example", saxpy ~= nil)
  local map, map_err = lsp.request_sync(client, lsp.methods.line_map, { textDocument = { uri = uri }, line = saxpy, filters = views.filters() }, 10000, src)
  local expected = expand(map and map.stages and map.stages.ptx)
  check("kernelscope/lineMap maps the SAXPY line to PTX lines", #expected > 0, vim.inspect(map or map_err))
  vim.api.nvim_set_current_win(src_win)
  feed("gg" .. (saxpy + 1) .. "G")
  local got = wait_for(function()
    local lines = highlighted(vbuf, views.ns)
    return #lines > 0 and lines
  end, 5000) or {}
  out(string.format("# SAXPY line %d: view lines highlighted %s, lineMap ptx %s", saxpy, table.concat(got, ","), table.concat(expected, ",")))
  check("CursorMoved on the SAXPY line highlights exactly its PTX lines", same_instructions(client, src, view, got, expected), "got " .. vim.inspect(got) .. ", lineMap " .. vim.inspect(expected))
  check("the SAXPY source line is highlighted too", same(highlighted(src, views.ns), { saxpy }), vim.inspect(highlighted(src, views.ns)))
  feed("gg")
  wait_for(function()
    return not same(highlighted(vbuf, views.ns), got)
  end, 2000)
  check("moving away changes the highlight", not same(highlighted(vbuf, views.ns), got))

  -- The other way: the cursor on a PTX line highlights the source line it came from.
  local vwin = win_of(vbuf)
  if expected[1] and vwin then
    vim.api.nvim_set_current_win(vwin)
    feed("gg" .. (expected[1] + 1) .. "G")
    local src_lines = wait_for(function()
      local lines = highlighted(src, views.ns)
      return #lines > 0 and lines
    end, 5000) or {}
    check("CursorMoved in the view highlights the source line", same(src_lines, { saxpy }), vim.inspect(src_lines))
    check("and all PTX lines of that source line", same_instructions(client, src, view, highlighted(vbuf, views.ns), expected), vim.inspect(highlighted(vbuf, views.ns)))

    -- K in the view asks the server about the instruction under the cursor.
    local text = press_k()
    check("K in the PTX view shows what the instruction is", text ~= nil)
    if text then
      out("# view hover: " .. text:gsub("\n", " | "):sub(1, 200))
      -- A later stage of the compile refreshes the view with the same text (a compile that
      -- is slow, as under load, does so while the user reads a hover): the hover stays.
      local refreshed = false
      views.refresh(vbuf, function()
        refreshed = true
      end)
      wait_for(function()
        return refreshed
      end, 10000)
      sleep(100) -- a CursorMoved would fire on the main loop's next turn
      check("the hover stays open when the view is refreshed with the same text", refreshed and floating_text() ~= nil)
    end
    close_floats()
    vim.api.nvim_set_current_win(src_win)
  end

  -- K in the source shows the hover with the line's PTX.
  vim.api.nvim_win_set_cursor(src_win, { saxpy + 1, 10 })
  feed("K")
  local hover = wait_for(function()
    local t = floating_text()
    return t and t ~= "" and t
  end, 10000)
  check("K on the SAXPY line opens a hover", hover ~= nil)
  if hover then
    local opcode_seen = false
    for _, l in ipairs(expected) do
      local line = vim.api.nvim_buf_get_lines(vbuf, l, l + 1, false)[1] or ""
      local opcode = line:match("^%s*@?!?%%?%w*%s*([%a][%w%.]*)")
      if opcode and #opcode > 2 and hover:find(opcode, 1, true) then
        opcode_seen = true
      end
    end
    check("the hover shows the line's PTX instructions", hover:lower():find("ptx") ~= nil and opcode_seen, hover:sub(1, 300))
  end
  close_floats()

  -- An edit and :write update the view.
  local before_text, before_rev = buf_text(vbuf), view.revision
  local line = vim.api.nvim_buf_get_lines(src, saxpy, saxpy + 1, false)[1]
  local changed = line:gsub("%+ %*y%.add%(i%);", "* *y.add(i);")
  vim.api.nvim_buf_set_lines(src, saxpy, saxpy + 1, false, { changed })
  vim.api.nvim_set_current_win(src_win)
  vim.cmd("silent write")
  local updated = wait_for(function()
    return view.revision ~= before_rev and buf_text(vbuf) ~= before_text
  end, compile_timeout)
  check("an edit and :write update the view", updated, "revision " .. tostring(view.revision))

  -- The ready status after the save says what the edit changed, and the plugin tells it
  -- once (vim.notify) and in its statusline string.
  local changes = wait_for(function()
    local st = views.status[uri]
    return st and st.state == "ready" and st.changes
  end, compile_timeout)
  check("kernelscope/status after the save carries the changes", changes ~= nil, vim.inspect(views.status[uri]))
  changes = changes or { stages = {}, summary = "?" }
  local ptx_change
  for _, c in ipairs(changes.stages or {}) do
    if c.stage == "ptx" then
      ptx_change = c
    end
  end
  -- `+ y` became `* y`: an add replaced by a multiply.
  check("the PTX of the edited line changed: an instruction added and one removed", ptx_change and ptx_change.added > 0 and ptx_change.removed > 0, vim.inspect(changes))
  if ptx_change then
    local want = string.format("PTX +%d −%d", ptx_change.added, ptx_change.removed)
    check("the summary counts them: " .. want, (", " .. changes.summary .. ","):find(", " .. want .. ",", 1, true) ~= nil, changes.summary)
  end
  local told = wait_for(function()
    local found = messages_with(changes.summary)
    return #found > 0 and found
  end, 5000) or {}
  sleep(300)
  told = messages_with(changes.summary)
  check("vim.notify tells the summary once, at INFO", #told == 1 and told[1].level == vim.log.levels.INFO, vim.inspect(notified))
  check("require('kernelscope').status() shows it for statuslines", ks.status(src, 200) == "kernelscope ready · " .. changes.summary, ks.status(src, 200))
  local narrow = ks.status(src, 20)
  check("in a narrow column the status is cut to its width, with …", vim.fn.strchars(narrow) == 20 and narrow:sub(-3) == "…",
    narrow)
  check("the view keeps the PTX filetype and stays read-only", vim.bo[vbuf].filetype == "kernelscope_ptx" and not vim.bo[vbuf].modifiable)

  -- :Kernelscope diff shows what the edit changed in the PTX.
  local commands = require("kernelscope.commands")
  local dbuf = commands.run("diff ptx")
  local dtext = dbuf and buf_text(dbuf) or ""
  check(":Kernelscope diff ptx shows a unified diff of the edit", dbuf and vim.bo[dbuf].filetype == "diff" and dtext:find("\n[-+]") ~= nil, dtext:sub(1, 300))
  if dbuf and win_of(dbuf) then
    vim.api.nvim_win_close(win_of(dbuf), true)
  end
  vim.api.nvim_set_current_win(src_win)
  check(":Kernelscope arch reports the target from the settings", commands.run("arch") == FIRST_ARCH)

  -- Other stages and commands.
  for _, stage in ipairs({ "sass", "llvm", "mir" }) do
    vim.api.nvim_set_current_win(src_win)
    vim.cmd("Kernelscope " .. stage)
    local v = views.find(src, lsp.stages[stage])
    local filled = v and wait_for(function()
      return v.revision ~= nil and #buf_text(v.bufnr) > 0
    end, 30000)
    check(":Kernelscope " .. stage .. " opens a view with text", filled, v and buf_text(v.bufnr):sub(1, 200))
  end

  -- K on an instruction of each stage view says what that instruction is.
  for _, h in ipairs(HOVERS) do
    local v = views.find(src, h.stage)
    local text, line = nil, "no " .. h.stage .. " view"
    if v then
      text, line = hover_in_view(v, h.line)
    end
    local missing = {}
    for _, want in ipairs(h.says) do
      if not (text and text:find(want, 1, true)) then
        table.insert(missing, want)
      end
    end
    check("K on `" .. vim.trim(tostring(line):gsub("%s*//.*$", "")) .. "` in the " .. h.stage .. " view explains it", text ~= nil and #missing == 0,
      "missing " .. table.concat(missing, ", ") .. " in: " .. tostring(text):gsub("\n", " | "):sub(1, 300))
  end
  -- :Kernelscope flow on the instruction that makes the value saxpy stores (after the edit
  -- above, `a * x * y`: a FMUL of the first FMUL's value and a load's): its operands come from
  -- a load, its result goes to the store; the quickfix list names those lines of the SASS
  -- view and jumps to the first. The views opened since took the SASS view's window: shown
  -- again first.
  vim.api.nvim_set_current_win(src_win)
  vim.cmd("Kernelscope sass")
  local sv = views.find(src, "sass")
  if sv then
    wait_for(function()
      return #buf_text(sv.bufnr) > 0
    end, 30000)
  end
  local ffma
  for i, l in ipairs(sv and vim.api.nvim_buf_get_lines(sv.bufnr, 0, -1, false) or {}) do
    if l:find(" STG", 1, true) then
      ffma = i - 1
      break
    end
  end
  local items = {}
  if sv and ffma and ffma > 0 then
    if win_of(sv.bufnr) then
      vim.api.nvim_set_current_win(win_of(sv.bufnr))
    else
      vim.api.nvim_set_current_buf(sv.bufnr)
    end
    vim.api.nvim_win_set_cursor(0, { ffma, 0 })
    items = commands.run("flow") or {}
  end
  local from_loads, to_store = 0, false
  for _, it in ipairs(items) do
    local l = sv and vim.api.nvim_buf_get_lines(sv.bufnr, it.lnum - 1, it.lnum, false)[1] or ""
    if it.text:find(" from LDG", 1, true) and l:find("LDG", 1, true) and it.bufnr == sv.bufnr then
      from_loads = from_loads + 1
    end
    to_store = to_store or (it.text:find(" used by STG", 1, true) ~= nil and l:find("STG", 1, true) ~= nil)
  end
  check(":Kernelscope flow on the stored value's instruction lists the load it reads", from_loads >= 1,
    vim.inspect(items))
  check("and the store that reads its result", to_store, vim.inspect(items))
  local qf = vim.fn.getqflist({ title = 1, size = 1 })
  check("in the quickfix list, titled with the flow in words", qf.size == #items and qf.title:find("from the LDG", 1, true) ~= nil, vim.inspect(qf))
  check("and the cursor is on the first", sv and vim.api.nvim_get_current_buf() == sv.bufnr
    and items[1] and vim.api.nvim_win_get_cursor(0)[1] == items[1].lnum, vim.inspect(items[1]))
  vim.cmd("cclose")
  -- :Kernelscope heat: the source (and its SASS view) coloured by a static figure, without a
  -- GPU; the SAXPY line, the kernel's only work, is among the hot lines; off clears it.
  local heat = require("kernelscope.profile")
  vim.api.nvim_set_current_win(src_win)
  local hot = commands.run("heat live") or {}
  check(":Kernelscope heat live colours the SAXPY line", vim.tbl_contains(hot, saxpy_line) and heat.heat(src, saxpy_line) ~= nil,
    vim.inspect(hot))
  local painted_view = sv and #vim.api.nvim_buf_get_extmarks(sv.bufnr, heat.ns, 0, -1, {}) > 0
  check("and the lines of its SASS view", painted_view)
  check("and says which lines to look at first", #messages_with("look first at line") >= 1, vim.inspect(notified))
  commands.run("heat off")
  check(":Kernelscope heat off clears it", heat.heat(src, saxpy_line) == nil and #heat.hot_lines(src) == 0)
  vim.api.nvim_set_current_win(src_win)
  local kbuf = commands.run("kernels")
  check(":Kernelscope kernels lists saxpy", kbuf and buf_text(kbuf):find("saxpy") ~= nil, kbuf and buf_text(kbuf))
  check("and names no internal revision", kbuf and not buf_text(kbuf):find("revision"), kbuf and buf_text(kbuf))
  if kbuf and win_of(kbuf) then
    vim.api.nvim_win_close(win_of(kbuf), true)
  end
  -- :Kernelscope passes: the passes that changed the kernel, LLVM's and MIR's, with counts.
  vim.api.nvim_set_current_win(src_win)
  local pbuf = commands.run("passes")
  local ptext = pbuf and buf_text(pbuf) or ""
  check(":Kernelscope passes lists the LLVM and MIR passes that changed saxpy",
    ptext:find("Passes that changed saxpy", 1, true) ~= nil and ptext:find("## LLVM IR:", 1, true) ~= nil
      and ptext:find("## MIR:", 1, true) ~= nil and ptext:find("%d+ → %d+ instructions") ~= nil,
    ptext:sub(1, 300))
  if pbuf and win_of(pbuf) then
    vim.api.nvim_win_close(win_of(pbuf), true)
  end
  vim.api.nvim_set_current_win(src_win)
  local status = commands.run("status") or {}
  check(":Kernelscope status reports the compile", table.concat(status, "\n"):find("ready") ~= nil, table.concat(status, " | "))
  check("and names no internal revision", not table.concat(status, "\n"):find("revision"), table.concat(status, " | "))

  -- :Kernelscope arch switches the target live: the PTX view, the SASS view, the code
  -- lens and the kernels follow, and the change is told.
  local sass_view = views.find(src, "sass")
  local sass_before = sass_view and buf_text(sass_view.bufnr) or ""
  local rev_before = views.status[uri] and views.status[uri].revision
  vim.api.nvim_set_current_win(src_win)
  commands.run("arch " .. NEXT_ARCH)
  local retargeted = wait_for(function()
    return buf_text(vbuf):find("%.target%s+" .. NEXT_ARCH) ~= nil
  end, compile_timeout)
  check(":Kernelscope arch " .. NEXT_ARCH .. " recompiles and the view shows .target " .. NEXT_ARCH, retargeted, buf_text(vbuf):match("%.target[^\n]*"))
  check(":Kernelscope arch then reports " .. NEXT_ARCH, commands.run("arch") == NEXT_ARCH)
  -- Its completion is the server's arch catalogue (initialize's capability), not a list of
  -- the plugin's own: the oldest and newest archs the server takes are offered.
  local offered = vim.fn.getcompletion("Kernelscope arch ", "cmdline")
  check(":Kernelscope arch completes the server's archs", vim.tbl_contains(offered, "default")
    and vim.tbl_contains(offered, "sm_50") and vim.tbl_contains(offered, "sm_121"), table.concat(offered, " "))
  local sass_after = sass_view and wait_for(function()
    local t = buf_text(sass_view.bufnr)
    return t ~= sass_before and t:find("%f[%w]LDG%f[^%w]") and t
  end, 20000)
  check("the SASS view shows new SASS for " .. NEXT_ARCH, sass_after ~= nil, sass_view and buf_text(sass_view.bufnr):sub(1, 200))
  lens = wait_for(function()
    local l = resource_lens(src)
    return l and l:find(NEXT_ARCH, 1, true) and l
  end, 10000)
  check("the code lens names " .. NEXT_ARCH, lens ~= nil, resource_lens(src))
  local switched = views.status[uri]
  local sass_changed = false
  for _, c in ipairs(switched and switched.changes and switched.changes.stages or {}) do
    sass_changed = sass_changed or (c.stage == "sass" and c.changed)
  end
  check("the status after the switch says the SASS changed", switched and switched.revision ~= rev_before and sass_changed
    and switched.changes.summary:find("SASS", 1, true) ~= nil, vim.inspect(switched and switched.changes))
  check("and the switch is told", switched and switched.changes and #messages_with(switched.changes.summary) >= 1, vim.inspect(notified))

  -- "default" takes the choice back, also the one in the settings (FIRST_ARCH): a file on
  -- its own compiles for sm_90. From sm_80, so that the default is a change.
  vim.api.nvim_set_current_win(src_win)
  commands.run("arch sm_80")
  check(":Kernelscope arch sm_80 retargets the view", wait_for(function()
    return buf_text(vbuf):find("%.target%s+sm_80") ~= nil
  end, compile_timeout), buf_text(vbuf):match("%.target[^\n]*"))
  commands.run("arch default")
  check(":Kernelscope arch default compiles for the default, sm_90", wait_for(function()
    return buf_text(vbuf):find("%.target%s+sm_90") ~= nil
  end, compile_timeout), buf_text(vbuf):match("%.target[^\n]*"))
  check(":Kernelscope arch then reports sm_90", commands.run("arch") == "sm_90", tostring(commands.run("arch")))

  -- `q` closes a view and forgets it.
  vim.api.nvim_set_current_win(win_of(vbuf))
  feed("q")
  local closed = wait_for(function()
    return not vim.api.nvim_buf_is_valid(vbuf) and views.find(src, "ptx") == nil
  end, 3000)
  check("q closes the view", closed)

  -- :checkhealth kernelscope runs `kernelscope doctor`.
  vim.api.nvim_set_current_win(src_win)
  vim.cmd("checkhealth kernelscope")
  local health = buf_text(vim.api.nvim_get_current_buf())
  check(":checkhealth kernelscope reports the server and doctor", health:find("kernelscope doctor", 1, true) ~= nil and health:find(server, 1, true) ~= nil, health:sub(1, 400))
end

t.run(run)
