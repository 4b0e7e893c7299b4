-- End-to-end test of launch spec diagnostics in Neovim: a spec whose shift is by a fraction
-- (`grid = 1 << 20 / 256`) is an error at the spec's line, at the shift's columns, with the
-- code spec-shift-precedence; the quick fix (`vim.lsp.buf.code_action()`) parenthesizes the
-- shift, and the error goes.
--
-- Runs in `nvim --headless --clean` (see run.sh) on a writable file. Environment:
-- KERNELSCOPE_BIN, KS_SOURCE (where to write the kernel), KS_RESULTS, KS_TIMEOUT_MS.
local server = assert(os.getenv("KERNELSCOPE_BIN"), "KERNELSCOPE_BIN is not set")
local path = assert(os.getenv("KS_SOURCE"), "KS_SOURCE is not set")

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness("specs")
local check, wait_for = t.check, t.wait_for

local SPEC = "// kernelscope: y = u32[1 << 20] zeros; grid = 1 << 20 / 256; block = 256"
local KERNEL = {
  "#![no_std]",
  "#![feature(abi_ptx)]",
  "#[panic_handler]",
  "fn panic(_: &core::panic::PanicInfo) -> ! { loop {} }",
  SPEC,
  "#[no_mangle]",
  'pub unsafe extern "ptx-kernel" fn k(y: *mut u32) {',
  "    *y = 1;",
  "}",
}

--- The diagnostics of `buf` whose code is `code`.
local function with_code(buf, code)
  return vim.tbl_filter(function(d)
    return d.code == code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code == code)
  end, vim.diagnostic.get(buf))
end

local function run()
  vim.fn.writefile(KERNEL, path)
  require("kernelscope").setup({ cmd = { server } })
  local src, win, client = t.open_source(path)
  if not client then
    return
  end

  local shift = wait_for(function()
    return with_code(src, "spec-shift-precedence")[1]
  end, t.compile_timeout)
  check("the spec's shift by a fraction is reported (spec-shift-precedence)", shift ~= nil,
    vim.inspect(vim.diagnostic.get(src)))
  if not shift then
    return
  end
  local spec_line = t.line_of(src, "// kernelscope:")
  local at = SPEC:find("1 << 20 / 256", 1, true) - 1
  check("it is an error on the spec's line", shift.lnum == spec_line and
    shift.severity == vim.diagnostic.severity.ERROR and shift.source == "kernelscope", vim.inspect(shift))
  check("at the shift's columns", shift.col == at and shift.end_col == at + #"1 << 20 / 256", vim.inspect(shift))
  check("its message says why", shift.message:find("/ binds tighter than << and >>", 1, true) ~= nil, shift.message)

  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(function(item)
      return opts.format_item and opts.format_item(item) or vim.inspect(item)
    end, items)
    for i, item in ipairs(items) do
      if opts.format_item(item):find("Shift first", 1, true) then
        return on_choice(item, i)
      end
    end
    on_choice(nil)
  end
  vim.api.nvim_win_set_cursor(win, { shift.lnum + 1, shift.col + 2 })
  vim.lsp.buf.code_action()
  check("the quick fix shifts first", wait_for(function()
    return t.line_of(src, "grid = (1 << 20) / 256; block = 256") ~= nil
  end, 10000), vim.inspect(offered))
  check("and the spec has no error after the next compile", wait_for(function()
    local status = require("kernelscope.views").status[require("kernelscope.lsp").text_document(src).uri]
    return status and status.state == "ready" and #with_code(src, "spec-shift-precedence") == 0
      and #vim.diagnostic.get(src, { severity = vim.diagnostic.severity.ERROR }) == 0
  end, t.compile_timeout), vim.inspect(vim.diagnostic.get(src)))
end

t.run(run)
