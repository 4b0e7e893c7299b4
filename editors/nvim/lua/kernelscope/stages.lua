-- kernelscope.stages: every stage at once, tiled beside the source, following the buffer.
--
-- `:Kernelscope stages [stage...]` splits the tab into columns: the source, then one
-- window per stage (the `tile_stages` option: PTX and SASS unless told). Like Compiler
-- Explorer's panes, a stage window belongs to the layout, not to a file: when another
-- attached source buffer is entered, each stage window switches to that buffer's view of
-- its stage (the previous view, hidden, is wiped), so the windows never pile up. Each
-- window's status line says which file and stage it shows (`kern/src/lib.rs · PTX`).
local config = require("kernelscope.config")
local lsp = require("kernelscope.lsp")
local views = require("kernelscope.views")

local M = {}

local TITLES = { mir = "MIR", ["llvm-ir"] = "LLVM IR", ptx = "PTX", sass = "SASS" }

-- stage window -> stage, for the windows of the tiled layout.
local windows = {}
local group = vim.api.nvim_create_augroup("kernelscope_stages", { clear = true })

--- `kern/src/lib.rs · PTX`: the source path relative to the working directory and the stage.
function M.title(src, stage)
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(src), ":~:.")
  return name .. " · " .. (TITLES[stage] or stage)
end

local function live_windows()
  local live = {}
  for win, stage in pairs(windows) do
    if vim.api.nvim_win_is_valid(win) then
      live[win] = stage
    else
      windows[win] = nil
    end
  end
  return live
end

--- Shows `src`'s view of `stage` in window `win` and asks the server for it.
local function show_in(win, src, stage)
  local view = views.find(src, stage) or views.create(src, stage)
  local old = vim.api.nvim_win_get_buf(win)
  if old ~= view.bufnr then
    vim.api.nvim_win_set_buf(win, view.bufnr)
    -- The old view is wiped (bufhidden) without its BufWipeout autocommand here.
    if not vim.api.nvim_buf_is_valid(old) then
      views.forget(old)
    end
  end
  views.prepare_window(win)
  -- Escaped for the statusline: a `%` in a path would start an item.
  vim.wo[win].statusline = M.title(src, stage):gsub("%%", "%%%%")
  views.refresh(view.bufnr)
  return view
end

--- Points every stage window at the views of source buffer `src`.
function M.follow(src)
  if not lsp.client(src) then
    return
  end
  for win, stage in pairs(live_windows()) do
    local shown = views.view(vim.api.nvim_win_get_buf(win))
    if not (shown and shown.source == src) then
      show_in(win, src, stage)
    end
  end
end

--- Opens the tiled layout for the current source buffer: the source on the left, then one
--- column per stage of `stages` (default: the `tile_stages` option). Returns the windows.
function M.open(stages)
  local src = views.source_of(vim.api.nvim_get_current_buf())
  if not lsp.client(src) then
    lsp.notify("no kernelscope server is attached to this buffer", vim.log.levels.ERROR)
    return
  end
  if not stages or #stages == 0 then
    stages = config.options.tile_stages
  end
  -- Start from the source alone in its tab, so the columns share the width evenly.
  local origin = vim.api.nvim_get_current_win()
  if views.view(vim.api.nvim_win_get_buf(origin)) then
    vim.api.nvim_win_set_buf(origin, src)
  end
  for win in pairs(live_windows()) do
    if win ~= origin and vim.api.nvim_win_get_tabpage(win) == vim.api.nvim_get_current_tabpage() then
      vim.api.nvim_win_close(win, true)
    end
  end
  windows = {}
  local opened, right = {}, origin
  for _, name in ipairs(stages) do
    local stage = lsp.stages[name] or name
    vim.api.nvim_set_current_win(right)
    vim.cmd("rightbelow vsplit")
    right = vim.api.nvim_get_current_win()
    windows[right] = stage
    show_in(right, src, stage)
    table.insert(opened, right)
  end
  vim.api.nvim_set_current_win(origin)
  vim.cmd("wincmd =")
  return opened
end

--- The stage windows of the layout, window -> stage.
function M.windows()
  return live_windows()
end

function M.setup()
  vim.api.nvim_create_autocmd("BufEnter", {
    group = group,
    callback = function(args)
      if next(windows) == nil or vim.bo[args.buf].buftype ~= "" or views.view(args.buf) then
        return
      end
      -- Switching after the buffer has settled in its window (LspAttach comes later on a
      -- buffer's first load).
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(args.buf) then
          M.follow(args.buf)
        end
      end)
    end,
  })
end

return M
