-- End-to-end test of a kernel crate on a path with non-ASCII characters
-- (`…/crates ünïcode/crate`): the server must echo Neovim's own spelling of the file URIs
-- in the views' segments and inline chains, or the plugin cannot tell which lines are its
-- file's. The PTX view lights the instructions of the line the cursor is on, and those
-- inlined through the call on it (math::axpb from math.rs), and a PTX line leads back.
--
-- Runs in `nvim --headless --clean` (see run.sh). Environment: KERNELSCOPE_BIN, KS_CRATE
-- (a copy of examples/crate beside examples/crate-util, under a non-ASCII path), KS_RESULTS,
-- KS_TIMEOUT_MS.
local server = assert(os.getenv("KERNELSCOPE_BIN"), "KERNELSCOPE_BIN is not set")
local crate = assert(os.getenv("KS_CRATE"), "KS_CRATE is not set")

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness("paths")
local check, wait_for = t.check, t.wait_for

local function marked(buf, ns)
  local lines = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {})) do
    lines[m[2]] = true
  end
  return lines
end

local function run()
  check("the crate's path has non-ASCII characters", crate:find("[\128-\255]") ~= nil, crate)
  local ks = require("kernelscope")
  local views = require("kernelscope.views")
  ks.setup({ cmd = { server } })
  local src, src_win, client = t.open_source(crate .. "/src/lib.rs")
  if not client then
    return
  end
  local own = require("kernelscope.lsp").text_document(src).uri
  -- Neovim 0.7 writes the escapes in lower case (`%c3%bc`), the server in upper case.
  check("Neovim percent-encodes the path in its URI", own:lower():find("%%c3") ~= nil, own)

  local vbuf = ks.open("ptx")
  local view = views.view(vbuf)
  check("the PTX view holds the crate's kernels", wait_for(function()
    return t.has_line(vbuf, "%.entry%s+scaled_saxpy") and next(view.by_view) ~= nil
  end, t.compile_timeout), table.concat(vim.api.nvim_buf_get_lines(vbuf, 0, 3, false), "\n"))

  -- The call of math::axpb: its own instructions, and those inlined from math.rs.
  local call = t.line_of(src, "math::axpb(")
  vim.api.nvim_set_current_win(src_win)
  vim.api.nvim_win_set_cursor(src_win, { call + 1, 0 })
  vim.api.nvim_exec_autocmds("CursorMoved", { buffer = src })
  local own_lines = wait_for(function()
    return next(marked(vbuf, views.ns)) and marked(vbuf, views.ns)
  end, 10000)
  check("the call line's own PTX is lit", own_lines ~= nil)
  local inlined = wait_for(function()
    return next(marked(vbuf, views.ns_inlined)) and marked(vbuf, views.ns_inlined)
  end, 10000)
  check("the PTX inlined through the call is lit as inlined", inlined ~= nil, vim.inspect(view.inlined))
  if inlined then
    local texts = {}
    for l in pairs(inlined) do
      table.insert(texts, vim.api.nvim_buf_get_lines(vbuf, l, l + 1, false)[1])
    end
    check("the inlined lines are axpb's arithmetic", table.concat(texts, "\n"):find("%.f32") ~= nil,
      table.concat(texts, "\n"))
  end

  -- Back from a PTX line of the call: the source line is lit.
  local vline = next(own_lines or {})
  if vline then
    local vwin = vim.fn.bufwinid(vbuf)
    vim.api.nvim_set_current_win(vwin)
    vim.api.nvim_win_set_cursor(vwin, { vline + 1, 0 })
    vim.api.nvim_exec_autocmds("CursorMoved", { buffer = vbuf })
    check("a PTX line of the call lights the call in lib.rs", wait_for(function()
      return marked(src, views.ns)[call]
    end, 10000), vim.inspect(marked(src, views.ns)))
  end
end

t.run(run)
