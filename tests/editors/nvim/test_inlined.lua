-- End-to-end test of an inlined call's line in the tiled stages: with the cursor on
-- `let (start, stride) = grid_stride();` of examples/elementwise_mul.rs, a line whose only
-- code came through the call, the PTX and SASS windows mark the lines inlined through it
-- (the KernelscopeInlined line highlight and a `▎` bar in KernelscopeInlinedBar), bring
-- them into view, and light the call's line; the bar reads at least 3:1 against the
-- background of the default colour scheme, light and dark.
--
-- Runs in `nvim --headless --clean` (see run.sh) on a writable copy of
-- examples/elementwise_mul.rs. Environment: KERNELSCOPE_BIN, KS_SOURCE, KS_RESULTS,
-- KS_TIMEOUT_MS.
local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness("inlined")
local check, wait_for, compile_timeout = t.check, t.wait_for, t.compile_timeout
local server = assert(os.getenv("KERNELSCOPE_BIN"), "KERNELSCOPE_BIN is not set")
local source = assert(os.getenv("KS_SOURCE"), "KS_SOURCE is not set")
-- The call whose line has no code of its own: grid_stride's body is inlined through it.
local CALL = "= grid_stride();"

--- WCAG's relative luminance of a 0xRRGGBB colour.
local function luminance(rgb)
  local function channel(c)
    c = c / 255
    return c <= 0.03928 and c / 12.92 or ((c + 0.055) / 1.055) ^ 2.4
  end
  local r, g, b = math.floor(rgb / 65536) % 256, math.floor(rgb / 256) % 256, rgb % 256
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
end

local function contrast(a, b)
  local la, lb = luminance(a), luminance(b)
  return (math.max(la, lb) + 0.05) / (math.min(la, lb) + 0.05)
end

--- The colours group `name` resolves to (links followed), as the GUI draws them.
local function colours(name)
  local ok, found = pcall(vim.api.nvim_get_hl_by_name, name, true)
  return ok and found or {}
end

--- The sign column of window `win` on 0-based buffer line `line` as drawn: its text and
--- screen attribute, and the attribute of the column on a line without a sign (Neovim
--- before 0.9 tells no sign of an extmark among its details).
local function drawn_sign(win, line)
  vim.cmd("redraw!")
  local at = vim.fn.screenpos(win, line + 1, 1)
  local col = vim.fn.win_screenpos(win)[2]
  return vim.fn.screenstring(at.row, col), vim.fn.screenattr(at.row, col)
end

--- The extmarks of `ns` in `buf`, by 0-based line, with their details.
local function marks(buf, ns)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    out[m[2]] = m[4]
  end
  return out
end

local function run()
  -- Windows shorter than the views, so that their code can be out of view.
  vim.o.columns, vim.o.lines = 240, 20
  vim.o.termguicolors = true
  local ks = require("kernelscope")
  local views = require("kernelscope.views")
  local stages = require("kernelscope.stages")
  ks.setup({ cmd = { server } })

  -- The bar's colour against the background, in the default colour scheme's light and dark
  -- variants (a scheme that leaves Normal's background to the terminal: white or black). A
  -- sign's cell takes its own group's colours, Normal's background where that has none.
  -- (`:colorscheme default` sets 'background' back to dark on Neovim 0.7.)
  for _, background in ipairs({ "light", "dark" }) do
    vim.o.background = background
    vim.cmd("highlight clear")
    vim.cmd("doautocmd ColorScheme")
    local bar = colours("KernelscopeInlinedBar")
    local normal = colours("Normal").background or (background == "light" and 0xffffff or 0x000000)
    local bg = bar.background or normal
    local line = colours("KernelscopeInlined").background
    check("KernelscopeInlinedBar has a colour of its own (" .. background .. ")", bar.foreground ~= nil,
      vim.inspect(bar))
    if bar.foreground then
      local ratio = contrast(bar.foreground, bg)
      check(string.format("the bar reads %.1f:1 against the %s background (at least 3:1)", ratio, background),
        ratio >= 3, string.format("#%06x on #%06x", bar.foreground, bg))
    end
    check("KernelscopeInlined sets the line apart (" .. background .. ")", line ~= nil and line ~= normal,
      vim.inspect(colours("KernelscopeInlined")))
  end

  local src, src_win, client = t.open_source(source)
  if not client then
    return
  end
  vim.cmd("Kernelscope stages")
  local by_stage = {}
  for win, stage in pairs(stages.windows()) do
    by_stage[stage] = win
  end
  if not check("the PTX and SASS windows open", by_stage.ptx and by_stage.sass, vim.inspect(by_stage)) then
    return
  end
  local buf_of = function(stage)
    return vim.api.nvim_win_get_buf(by_stage[stage])
  end
  check("the SASS window fills in", wait_for(function()
    return t.has_line(buf_of("sass"), "S2R") and next(views.view(buf_of("sass")).by_view) ~= nil
      and next(views.view(buf_of("ptx")).by_view) ~= nil
  end, compile_timeout))

  -- The views scrolled to their ends, away from grid_stride's code near the kernel's top.
  for _, stage in ipairs({ "ptx", "sass" }) do
    vim.api.nvim_win_set_cursor(by_stage[stage], { vim.api.nvim_buf_line_count(buf_of(stage)), 0 })
  end
  local call = t.line_of(src, CALL)
  vim.api.nvim_set_current_win(src_win)
  vim.api.nvim_win_set_cursor(src_win, { call + 1, 0 })
  vim.api.nvim_exec_autocmds("CursorMoved", { buffer = src })
  for _, stage in ipairs({ "ptx", "sass" }) do
    local buf, win = buf_of(stage), by_stage[stage]
    local inlined = wait_for(function()
      local m = marks(buf, views.ns_inlined)
      return next(m) and m
    end, 10000)
    if check("the " .. stage .. " lines inlined through the call are marked", inlined ~= nil,
        vim.inspect(views.view(buf).inlined[call])) then
      local lines, texts, barred = {}, {}, true
      for l, details in pairs(inlined) do
        table.insert(lines, l)
        table.insert(texts, vim.api.nvim_buf_get_lines(buf, l, l + 1, false)[1])
        if details.sign_text then
          barred = barred and details.line_hl_group == "KernelscopeInlined"
            and vim.trim(details.sign_text) == "▎" and details.sign_hl_group == "KernelscopeInlinedBar"
        end
      end
      table.sort(lines)
      check("each " .. stage .. " inlined line has the line highlight and the ▎ bar", barred,
        vim.inspect(inlined[lines[1]]))
      -- As drawn: the bar in the sign column of the first inlined line, in a colour of its own.
      local text, attr = drawn_sign(win, lines[1])
      local plain = 0
      for l = 0, vim.api.nvim_buf_line_count(buf) - 1 do
        if not inlined[l] and vim.fn.line("w0", win) <= l + 1 and l + 1 <= vim.fn.line("w$", win) then
          plain = select(2, drawn_sign(win, l))
          break
        end
      end
      check("the " .. stage .. " window draws the ▎ in its sign column, coloured",
        text == "▎" and attr ~= plain, string.format("%q attr %d (a plain line's: %d)", text, attr, plain))
      -- grid_stride's body: the block and thread indices.
      check("the marked " .. stage .. " lines are grid_stride's code",
        table.concat(texts, "\n"):find(stage == "ptx" and "%%ctaid%.x" or "SR_CTAID%.X") ~= nil,
        table.concat(texts, "\n"))
      local top, bottom = vim.fn.line("w0", win), vim.fn.line("w$", win)
      check("the inlined " .. stage .. " lines are scrolled into view", top <= lines[1] + 1 and lines[1] + 1 <= bottom,
        string.format("line %d, window shows %d-%d", lines[1] + 1, top, bottom))
      check("the " .. stage .. " window keeps its sign column (the text does not shift)",
        vim.wo[win].signcolumn == "yes:1", vim.wo[win].signcolumn)
    end
  end
  check("the call's line is lit in the source", marks(src, views.ns)[call] ~= nil, vim.inspect(marks(src, views.ns)))

  -- Off the call, on a line without code: the marks go.
  vim.api.nvim_win_set_cursor(src_win, { 1, 0 })
  vim.api.nvim_exec_autocmds("CursorMoved", { buffer = src })
  check("a line without code clears the inlined marks", wait_for(function()
    return next(marks(buf_of("ptx"), views.ns_inlined)) == nil
  end, 5000))
end

t.run(run)
