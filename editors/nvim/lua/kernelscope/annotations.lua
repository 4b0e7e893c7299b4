-- kernelscope.annotations: the per-line instruction counts (inlay hints) and the per-kernel
-- resource lines (code lenses) in source buffers, refreshed after every compile.
--
-- The server's hints change when a compile finishes, not when the text changes, so the
-- plugin asks for them again on each `ready` status and draws them itself as end-of-line
-- virtual text: that works the same on Neovim 0.7 (which has no inlay hints) and on
-- current Neovim. Code lenses use Neovim's own renderer; their `kernelscope.openArtifact`
-- command opens the stage view of the kernel.
local config = require("kernelscope.config")
local lsp = require("kernelscope.lsp")

local M = {}

M.ns = vim.api.nvim_create_namespace("kernelscope_hints")

local function hint_text(hint)
  if type(hint.label) == "string" then
    return hint.label
  end
  local parts = {}
  for _, part in ipairs(hint.label or {}) do
    table.insert(parts, part.value or "")
  end
  return table.concat(parts)
end

--- Asks for the inlay hints of the whole of `bufnr` and draws them.
function M.refresh_hints(bufnr)
  local client = lsp.client(bufnr)
  if not (client and config.options.inlay_hints) then
    return
  end
  local last = math.max(vim.api.nvim_buf_line_count(bufnr) - 1, 0)
  local params = {
    textDocument = lsp.text_document(bufnr),
    range = { start = { line = 0, character = 0 }, ["end"] = { line = last + 1, character = 0 } },
  }
  lsp.request(client, "textDocument/inlayHint", params, function(err, result)
    if err or not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
    local count = vim.api.nvim_buf_line_count(bufnr)
    for _, hint in ipairs(result or {}) do
      local line = hint.position and hint.position.line
      if line and line < count then
        vim.api.nvim_buf_set_extmark(bufnr, M.ns, line, 0, {
          virt_text = { { "  " .. hint_text(hint), "KernelscopeHint" } },
          virt_text_pos = "eol",
          hl_mode = "combine",
        })
      end
    end
  end, bufnr)
end

--- Asks Neovim to fetch and draw the code lenses of `bufnr` again.
function M.refresh_lenses(bufnr)
  if not (config.options.codelens and lsp.client(bufnr)) then
    return
  end
  vim.api.nvim_buf_call(bufnr, function()
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  end)
end

function M.refresh(bufnr)
  M.refresh_hints(bufnr)
  M.refresh_lenses(bufnr)
end

--- Handles kernelscope/status for the source buffers it names.
function M.on_status(params)
  if not (type(params) == "table" and params.state == "ready" and params.uri) then
    return
  end
  for _, client in ipairs(lsp.clients()) do
    for bufnr in pairs(client.attached_buffers or {}) do
      if vim.api.nvim_buf_is_loaded(bufnr) and lsp.text_document(bufnr).uri == params.uri then
        M.refresh(bufnr)
      end
    end
  end
end

--- The client side of the server's `kernelscope.openArtifact` command (code lenses):
--- opens the stage view of the source and puts its cursor on the kernel.
function M.open_artifact(command)
  local arg = (command.arguments or {})[1] or {}
  if not arg.uri then
    return
  end
  local src = vim.uri_to_bufnr(arg.uri)
  local views = require("kernelscope.views")
  local stage = arg.stage or "ptx"
  views.open(src, stage, {
    on_done = function()
      local view = views.find(src, stage)
      if not (view and arg.kernel) then
        return
      end
      for _, k in ipairs(view.kernels or {}) do
        if k.name == arg.kernel or k.name:find(arg.kernel, 1, true) then
          for _, win in ipairs(vim.api.nvim_list_wins()) do
            if vim.api.nvim_win_get_buf(win) == view.bufnr then
              vim.api.nvim_win_set_cursor(win, { k.start + 1, 0 })
            end
          end
          return
        end
      end
    end,
  })
end

function M.setup()
  vim.cmd("highlight default link KernelscopeHint Comment")
  vim.lsp.commands["kernelscope.openArtifact"] = M.open_artifact
end

return M
