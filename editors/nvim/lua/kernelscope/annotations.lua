-- kernelscope.annotations: the per-line instruction counts (inlay hints) and the per-kernel
-- resource lines (code lenses) in source buffers, refreshed after every compile; and what
-- each compile changed ("PTX +3 −1, SASS +2, regs 10→12"), told once per save.
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

-- source uri -> the `changes` of its newest ready compile, with `revision` and `told`.
M.changes = {}

--- Tells the user what the newest compile of `uri` changed, once.
local function tell_changes(uri)
  local c = M.changes[uri]
  if not c or c.told or not config.options.notify_changes then
    return
  end
  c.told = true
  lsp.notify(vim.fn.fnamemodify(vim.uri_to_fname(uri), ":t") .. ": " .. c.summary, vim.log.levels.INFO)
end

--- Handles kernelscope/status for the source buffers it names.
function M.on_status(params)
  if not (type(params) == "table" and params.state == "ready" and params.uri) then
    return
  end
  if params.changes then
    M.changes[params.uri] = vim.tbl_extend("force", params.changes, { revision = params.revision, told = false })
  end
  for _, client in ipairs(lsp.clients()) do
    for bufnr in pairs(client.attached_buffers or {}) do
      if vim.api.nvim_buf_is_loaded(bufnr) and lsp.text_document(bufnr).uri == params.uri then
        M.refresh(bufnr)
        -- A compile of saved text (a save, a settings change) is told now; one of text
        -- still being typed waits for the write (BufWritePost below).
        if not vim.bo[bufnr].modified then
          tell_changes(params.uri)
        end
      end
    end
  end
end

--- A statusline string for `bufnr` (the current buffer when nil): the compile state and
--- what the newest compile changed, e.g. `kernelscope ready · PTX +1 −1, SASS +1`; empty
--- for buffers kernelscope does not compile.
local function full_statusline(bufnr)
  local uri = lsp.text_document(bufnr).uri
  local st = require("kernelscope.views").status[uri]
  if not st then
    return ""
  end
  local c = M.changes[uri]
  if st.state == "ready" and type(st.pending) == "table" and #st.pending > 0 then
    return "kernelscope ready · " .. table.concat(st.pending, ", ") .. " coming"
  end
  if st.state == "ready" and c and c.revision == st.revision then
    return "kernelscope ready · " .. c.summary
  end
  return "kernelscope " .. st.state
end

--- The statusline text of `bufnr`, at most `width` characters (default: the current
--- window's width less room for a file name), cut with `…`: in a column of tiled stages a
--- long change summary would push the file name out.
function M.statusline(bufnr, width)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local text = full_statusline(bufnr)
  width = width or math.max(16, vim.api.nvim_win_get_width(0) - 24)
  if vim.fn.strchars(text) <= width then
    return text
  end
  return vim.fn.strcharpart(text, 0, width - 1) .. "…"
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
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = vim.api.nvim_create_augroup("kernelscope_changes", { clear = true }),
    callback = function(args)
      -- Only when the newest compile is done: a pending one tells its own changes.
      local uri = lsp.text_document(args.buf).uri
      local st = require("kernelscope.views").status[uri]
      local c = M.changes[uri]
      if st and c and st.state == "ready" and st.revision == c.revision then
        tell_changes(uri)
      end
    end,
  })
end

return M
