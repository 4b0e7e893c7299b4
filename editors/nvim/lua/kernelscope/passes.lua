-- kernelscope.passes: `:KernelscopePasses [kernel]`, the LLVM and MIR passes that changed a
-- kernel, each with its diff and instruction counts, in a read-only buffer named after the
-- server's document `kernelscope:/passes/<path>.passes?kernel=NAME` (as `kernelscope://...`). The server computes
-- it (kernelscope/passes: one more rustc run); this module only picks the kernel.
local lsp = require("kernelscope.lsp")
local views = require("kernelscope.views")

local M = {}

local METHOD = "kernelscope/passes"

--- The kernel defined nearest above the cursor, else the only one; nil and the names otherwise.
local function kernel_at_cursor(client, src)
  local result, err = lsp.request_sync(client, lsp.methods.kernels, { textDocument = lsp.text_document(src) }, 10000, src)
  if err or not result then
    return nil, lsp.error_message(err or "no result")
  end
  local ks = result.kernels or {}
  if #ks == 1 then
    return ks[1].demangled
  end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local best
  for _, k in ipairs(ks) do
    if k.range and k.range.start.line <= line and (not best or k.range.start.line > best.range.start.line) then
      best = k
    end
  end
  if best then
    return best.demangled
  end
  local names = {}
  for _, k in ipairs(ks) do
    table.insert(names, k.demangled)
  end
  return nil, #names == 0 and "the file has no kernels" or ("name one: " .. table.concat(names, ", "))
end

--- Opens the passes of `kernel` (default: the kernel at the cursor) of the current source.
function M.open(kernel)
  local src = views.source_of(vim.api.nvim_get_current_buf())
  local client = lsp.client(src)
  if not client then
    lsp.notify("no kernelscope server is attached to this buffer", vim.log.levels.ERROR)
    return
  end
  if not kernel or kernel == "" then
    local why
    kernel, why = kernel_at_cursor(client, src)
    if not kernel then
      lsp.notify("passes: " .. why, vim.log.levels.WARN)
      return
    end
  end
  -- One more rustc run on the server: allow it the time of a compile.
  local params = { textDocument = lsp.text_document(src), kernel = kernel }
  local result, err = lsp.request_sync(client, METHOD, params, 120000, src)
  if err or not result then
    lsp.notify("passes: " .. lsp.error_message(err or "no result"), vim.log.levels.WARN)
    return
  end
  local lines = views.split_text(result.text)
  -- Neovim takes `scheme://` names as URLs (and `kernelscope:/x` as a relative path).
  local buf = views.scratch((result.uri:gsub("^kernelscope:/", "kernelscope://", 1)), lines, "diff")
  vim.cmd("belowright vsplit")
  vim.api.nvim_win_set_buf(0, buf)
  return buf
end

function M.register()
  vim.api.nvim_create_user_command("KernelscopePasses", function(opts)
    M.open(opts.fargs[1])
  end, { nargs = "?", desc = "kernelscope: the optimization passes that changed a kernel" })
end

return M
