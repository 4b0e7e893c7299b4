-- kernelscope: the Neovim client of the kernelscope language server.
--
-- `require("kernelscope").setup{...}` starts the server for the Rust files of kernel crates on the
-- built-in LSP client, so diagnostics, hover, inlay hints and code lenses work as for any
-- server. On top of that the plugin adds what LSP has no UI for: `:Kernelscope ptx|sass|
-- llvm|mir` opens what the buffer became in a scratch split, linked to the source line by
-- line, and `:Kernelscope diff|kernels|arch|status|rebuild`. Works on Neovim 0.7 (through
-- vim.lsp.start_client) and on current Neovim (through vim.lsp.start).
local config = require("kernelscope.config")
local lsp = require("kernelscope.lsp")
local views = require("kernelscope.views")
local annotations = require("kernelscope.annotations")
local crate = require("kernelscope.crate")
local server = require("kernelscope.server")

local M = {}

-- root dir -> client id, for Neovim versions without vim.lsp.start.
local clients_by_root = {}
-- Whether the user has been told that no server was found (once per session).
local told_missing = false

--- True when `bufnr` declares a GPU kernel itself (a kernel ABI, or nvptx).
function M.is_kernel_source(bufnr)
  return crate.buffer_has_kernel(bufnr)
end

local function exists(path)
  return (vim.uv or vim.loop).fs_stat(path) ~= nil
end

--- The project root of `bufnr`: the nearest directory upwards holding a root marker.
function M.root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = vim.fn.fnamemodify(name ~= "" and name or vim.fn.getcwd(), ":p:h")
  local current = dir
  while current and current ~= "" do
    for _, marker in ipairs(config.options.root_markers) do
      if exists(current .. "/" .. marker) then
        return current
      end
    end
    local parent = vim.fn.fnamemodify(current, ":h")
    if parent == current then
      break
    end
    current = parent
  end
  return dir
end

local function on_attach(client, bufnr)
  local key = config.options.keys.hover
  if key then
    vim.keymap.set("n", key, vim.lsp.buf.hover, { buffer = bufnr, desc = "kernelscope: hover" })
  end
  annotations.refresh(bufnr)
  if bufnr == vim.api.nvim_get_current_buf() then
    require("kernelscope.stages").follow(bufnr)
  end
  if config.options.on_attach then
    config.options.on_attach(client, bufnr)
  end
end

local function client_config(root, cmd)
  local opts = config.options
  local settings = vim.deepcopy(opts.settings or {})
  -- The GPU options travel as the server's gpuRunner and ncu settings.
  local gpu = opts.gpu or {}
  if gpu.runner and gpu.runner ~= "" then
    settings.gpuRunner = gpu.runner
  end
  if gpu.ncu and gpu.ncu ~= "" then
    settings.ncu = gpu.ncu
  end
  return {
    name = lsp.name,
    cmd = cmd,
    cmd_env = opts.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    -- An empty Lua table would go out as JSON `[]`.
    init_options = next(settings) and settings or vim.empty_dict(),
    settings = { kernelscope = next(settings) and settings or vim.empty_dict() },
    capabilities = vim.lsp.protocol.make_client_capabilities(),
    handlers = {
      [lsp.methods.status] = function(_, result)
        views.on_status(result)
        annotations.on_status(result)
      end,
      -- Run and profile progress is ours to show; the rest goes to Neovim's handler.
      ["$/progress"] = function(err, result, ctx, cfg)
        if not require("kernelscope.profile").on_progress(result) then
          return vim.lsp.handlers["$/progress"](err, result, ctx, cfg)
        end
      end,
    },
    on_attach = on_attach,
  }
end

--- Starts (or reuses) the server for `bufnr` and attaches it. Returns the client id.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local found = server.find(config.options.cmd)
  if not found then
    if not told_missing then
      told_missing = true
      lsp.notify("the kernelscope server was not found: see :checkhealth kernelscope", vim.log.levels.ERROR)
    end
    return nil
  end
  local root = M.root_dir(bufnr)
  if vim.lsp.start then
    return vim.lsp.start(client_config(root, found.cmd), { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  if not (id and vim.lsp.get_client_by_id(id)) then
    id = vim.lsp.start_client(client_config(root, found.cmd))
    if not id then
      lsp.notify("could not start " .. table.concat(found.cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

local function maybe_attach(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return
  end
  local wants = config.options.attach or crate.wants
  if wants(bufnr) then
    M.attach(bufnr)
  end
end

--- A statusline string for `bufnr`: the compile state and what the newest compile
--- changed (`kernelscope ready · PTX +1 −1, SASS +2`); empty for other buffers. At most
--- `width` characters (default: what the current window leaves beside a file name).
function M.status(bufnr, width)
  return annotations.statusline(bufnr, width)
end

--- Opens the `stage` view of the current buffer (or of the source behind a view).
function M.open(stage, opts)
  local src = views.source_of(vim.api.nvim_get_current_buf())
  return views.open(src, lsp.stages[stage] or stage, opts)
end

function M.setup(user)
  config.set(user)
  views.setup_highlights()
  annotations.setup()
  require("kernelscope.profile").setup()
  require("kernelscope.stages").setup()
  require("kernelscope.commands").register()

  local group = vim.api.nvim_create_augroup("kernelscope", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = config.options.filetypes,
    callback = function(args)
      maybe_attach(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd("ColorScheme", {
    group = group,
    callback = function()
      views.setup_highlights()
      annotations.setup()
    end,
  })
  -- Buffers that were already open when setup ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(config.options.filetypes, vim.bo[buf].filetype) then
      maybe_attach(buf)
    end
  end
end

return M
