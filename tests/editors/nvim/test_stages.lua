-- End-to-end test of `:Kernelscope stages`: source | PTX | SASS tiled side by side, the
-- stage windows following the current buffer.
--
-- Runs in `nvim --headless --clean` (see run.sh) on writable copies of examples/saxpy.rs
-- and examples/vector_add.rs in one directory. Environment: KERNELSCOPE_BIN, KS_SOURCE
-- (saxpy.rs), KS_RESULTS, KS_TIMEOUT_MS.
local server = assert(os.getenv("KERNELSCOPE_BIN"), "KERNELSCOPE_BIN is not set")
local saxpy = assert(os.getenv("KS_SOURCE"), "KS_SOURCE is not set")
local vector_add = vim.fn.fnamemodify(saxpy, ":h") .. "/vector_add.rs"
local SAXPY_LINE = "*y.add(i) = a * *x.add(i) + *y.add(i);"

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness("stages")
local check, wait_for, has_line, compile_timeout = t.check, t.wait_for, t.has_line, t.compile_timeout

local function run()
  -- A wide screen, as a user who tiles three columns has.
  vim.o.columns, vim.o.lines = 240, 50
  local ks = require("kernelscope")
  local views = require("kernelscope.views")
  local stages = require("kernelscope.stages")
  ks.setup({ cmd = { server } })

  local src, src_win, client = t.open_source(saxpy)
  if not client then
    return
  end

  vim.cmd("Kernelscope stages")
  local wins = stages.windows()
  local by_stage = {}
  for win, stage in pairs(wins) do
    by_stage[stage] = win
  end
  check("one command opens a PTX and a SASS window", by_stage.ptx and by_stage.sass and vim.tbl_count(wins) == 2, vim.inspect(wins))
  if not (by_stage.ptx and by_stage.sass) then
    return
  end
  local row = function(win)
    return vim.api.nvim_win_get_position(win)[1]
  end
  local col = function(win)
    return vim.api.nvim_win_get_position(win)[2]
  end
  check("source | PTX | SASS side by side, left to right",
    row(src_win) == row(by_stage.ptx) and row(by_stage.ptx) == row(by_stage.sass)
      and col(src_win) < col(by_stage.ptx) and col(by_stage.ptx) < col(by_stage.sass),
    vim.inspect({ src = vim.api.nvim_win_get_position(src_win), ptx = vim.api.nvim_win_get_position(by_stage.ptx),
      sass = vim.api.nvim_win_get_position(by_stage.sass) }))
  check("the cursor stays in the source", vim.api.nvim_get_current_win() == src_win)
  check("each window's title names the file and the stage",
    vim.wo[by_stage.ptx].statusline:find("saxpy.rs · PTX", 1, true) ~= nil
      and vim.wo[by_stage.sass].statusline:find("saxpy.rs · SASS", 1, true) ~= nil,
    vim.wo[by_stage.ptx].statusline .. " | " .. vim.wo[by_stage.sass].statusline)

  local ptx = function()
    return vim.api.nvim_win_get_buf(by_stage.ptx)
  end
  local sass = function()
    return vim.api.nvim_win_get_buf(by_stage.sass)
  end
  check("the PTX window holds saxpy's PTX", wait_for(function()
    return has_line(ptx(), "%.entry%s+saxpy")
  end, compile_timeout))
  check("the SASS window holds saxpy's SASS", wait_for(function()
    return has_line(sass(), "FFMA") or has_line(sass(), "FMUL")
  end, compile_timeout))

  -- The cursor on the SAXPY line lights its instructions and scrolls them into view.
  vim.api.nvim_win_set_cursor(src_win, { t.line_of(src, SAXPY_LINE) + 1, 0 })
  vim.api.nvim_exec_autocmds("CursorMoved", { buffer = src })
  local lit = wait_for(function()
    local marks = vim.api.nvim_buf_get_extmarks(ptx(), views.ns, 0, -1, {})
    return #marks > 0 and marks
  end)
  check("the SAXPY line's PTX is highlighted", lit ~= nil)
  if lit then
    local first = lit[1][2] + 1
    local top, bottom = vim.fn.line("w0", by_stage.ptx), vim.fn.line("w$", by_stage.ptx)
    check("the highlighted PTX is scrolled into view", top <= first and first <= bottom,
      string.format("line %d, window shows %d-%d", first, top, bottom))
  end

  -- Another file: the same two windows now show its stages, and saxpy's views are gone.
  local old_ptx = ptx()
  vim.cmd("edit " .. vim.fn.fnameescape(vector_add))
  local other = vim.api.nvim_get_current_buf()
  check("the PTX window follows to vector_add.rs", wait_for(function()
    return has_line(ptx(), "%.entry%s+vector_add")
  end, compile_timeout), table.concat(vim.api.nvim_buf_get_lines(ptx(), 0, 5, false), "\n"))
  check("the SASS window follows to vector_add.rs", wait_for(function()
    local v = views.view(sass())
    return v and v.source == other and vim.wo[by_stage.sass].statusline:find("vector_add.rs · SASS", 1, true)
  end, compile_timeout))
  check("still the source and two stage windows", #vim.api.nvim_tabpage_list_wins(0) == 3,
    #vim.api.nvim_tabpage_list_wins(0))
  check("saxpy's hidden views are wiped, not piled up", not vim.api.nvim_buf_is_valid(old_ptx))

  -- Back to saxpy: the windows follow back.
  vim.cmd("buffer " .. src)
  check("the PTX window follows back to saxpy.rs", wait_for(function()
    return has_line(ptx(), "%.entry%s+saxpy")
  end, compile_timeout))

  -- The kernels table from the narrow source column: across the whole screen, every row
  -- shown whole (no wrapped rows pushing the last ones out as `@@@`).
  vim.api.nvim_set_current_win(src_win)
  vim.cmd("Kernelscope kernels")
  local table_win = vim.api.nvim_get_current_win()
  local rows = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(table_win))
  check("the kernels table spans the screen", vim.api.nvim_win_get_width(table_win) == vim.o.columns,
    vim.api.nvim_win_get_width(table_win) .. " of " .. vim.o.columns)
  check("every row of the table is shown, unwrapped",
    not vim.wo[table_win].wrap and vim.api.nvim_win_get_height(table_win) >= rows,
    string.format("height %d for %d rows, wrap %s", vim.api.nvim_win_get_height(table_win), rows,
      tostring(vim.wo[table_win].wrap)))
  vim.cmd("close")
end

t.run(run)
