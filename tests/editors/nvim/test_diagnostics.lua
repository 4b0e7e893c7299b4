-- End-to-end test of rustc's diagnostics in Neovim: a type error shows rustc's
-- expected/found in the diagnostic's message, and rustc's machine-applicable suggestion
-- (a missing `mut`) is a code action that `vim.lsp.buf.code_action()` applies; the file
-- then compiles.
--
-- Runs in `nvim --headless --clean` (see run.sh) on a writable file. Environment:
-- KERNELSCOPE_BIN, KS_SOURCE (where to write the kernel), KS_RESULTS, KS_TIMEOUT_MS.
local server = assert(os.getenv("KERNELSCOPE_BIN"), "KERNELSCOPE_BIN is not set")
local path = assert(os.getenv("KS_SOURCE"), "KS_SOURCE is not set")

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness("diagnostics")
local check, wait_for = t.check, t.wait_for

local HEADER = {
  "#![no_std]",
  "#![feature(abi_ptx)]",
  "#[panic_handler]",
  "fn panic(_: &core::panic::PanicInfo) -> ! { loop {} }",
  "#[no_mangle]",
  'pub unsafe extern "ptx-kernel" fn k(y: *mut u32) {',
}
local function kernel(body)
  return vim.list_extend(vim.deepcopy(HEADER), vim.list_extend(body, { "}" }))
end

--- The error diagnostics of `buf` whose code is `code`.
local function errors(buf, code)
  return vim.tbl_filter(function(d)
    return d.code == code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code == code)
  end, vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR }))
end

local function run()
  vim.fn.writefile(kernel({ "    let z: u32 = 1.0f32;", "    *y = z;" }), path)
  require("kernelscope").setup({ cmd = { server } })
  local src, win, client = t.open_source(path)
  if not client then
    return
  end

  local mismatch = wait_for(function()
    return errors(src, "E0308")[1]
  end, t.compile_timeout)
  check("a type error is reported (E0308)", mismatch ~= nil, vim.inspect(vim.diagnostic.get(src)))
  if mismatch then
    check("its message says what was expected and what was found",
      mismatch.message:find("expected `u32`, found `f32`", 1, true) ~= nil, mismatch.message)
    check("it is on the line of the mistake", mismatch.lnum == t.line_of(src, "let z: u32"), mismatch.lnum)
  end

  -- A view of a file that does not compile says so, not that a compile is still running.
  local ptx_view = require("kernelscope").open("ptx")
  vim.api.nvim_set_current_win(win)
  local function view_text()
    return ptx_view and table.concat(vim.api.nvim_buf_get_lines(ptx_view, 0, -1, false), "\n") or ""
  end
  check("the PTX view of the failing file says it does not compile", wait_for(function()
    return view_text():find("the file does not compile", 1, true) ~= nil
  end, 10000), view_text())

  -- A missing `mut`, typed in: rustc suggests the fix, the code action applies it.
  vim.api.nvim_buf_set_lines(src, #HEADER, -1, false, { "    let x = 1u32;", "    x = 2;", "    *y = x;", "}" })
  local twice = wait_for(function()
    return #errors(src, "E0308") == 0 and errors(src, "E0384")[1]
  end, t.compile_timeout)
  check("assigning twice is reported (E0384)", twice ~= nil, vim.inspect(vim.diagnostic.get(src)))
  if not twice then
    return
  end
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(function(item)
      return opts.format_item and opts.format_item(item) or vim.inspect(item)
    end, items)
    for i, item in ipairs(items) do
      if opts.format_item(item):find("mutable", 1, true) then
        return on_choice(item, i)
      end
    end
    on_choice(nil)
  end
  vim.api.nvim_win_set_cursor(win, { twice.lnum + 1, twice.col })
  vim.lsp.buf.code_action()
  check("the quick fix applies: the binding is mutable", wait_for(function()
    return t.line_of(src, "let mut x = 1u32;") ~= nil
  end, 10000), vim.inspect(offered))
  check("and the file compiles without errors", wait_for(function()
    local status = require("kernelscope.views").status[require("kernelscope.lsp").text_document(src).uri]
    return status and status.state == "ready"
      and #vim.diagnostic.get(src, { severity = vim.diagnostic.severity.ERROR }) == 0
  end, t.compile_timeout), vim.inspect(vim.diagnostic.get(src)))
  check("then the PTX view fills in", wait_for(function()
    return view_text():find("%.entry%s+k") ~= nil
  end, t.compile_timeout), view_text())
end

t.run(run)
