-- kernelscope.views: stage views (PTX, SASS, LLVM IR, MIR) in scratch buffers, and the
-- linked highlighting between a source buffer and its views.
--
-- A view is a `nofile`, read-only buffer that holds one `kernelscope/artifact` of one
-- source buffer. The artifact's segments (artifact line range -> source line) are kept
-- in two maps, source line -> view ranges and view line -> source line, so moving the
-- cursor on either side highlights the other in the `kernelscope` namespace without a
-- round trip. Views refresh themselves when the server reports the source `ready`.
local config = require("kernelscope.config")
local lsp = require("kernelscope.lsp")

local M = {}

-- Lines written on the linked source line, and lines inlined through a call on it.
M.ns = vim.api.nvim_create_namespace("kernelscope")
M.ns_inlined = vim.api.nvim_create_namespace("kernelscope_inlined")
local group = vim.api.nvim_create_augroup("kernelscope_views", { clear = true })

-- view bufnr -> view state (see new_view)
local views = {}
-- source bufnr -> { [stage] = view bufnr }
local by_source = {}
-- source uri -> last kernelscope/status params
M.status = {}

local function valid(buf)
  return buf and vim.api.nvim_buf_is_valid(buf)
end

local function windows_of(buf)
  local wins = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      table.insert(wins, win)
    end
  end
  return wins
end

local function set_text(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- The lines of a text the server sent; a final newline ends the last line, it does not
--- start another (an empty text has no lines).
function M.split_text(text)
  local lines = vim.split(text or "", "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end
local split_text = M.split_text

--- Sets up a window that shows a view: its sign column always there, so that the bar of
--- inlined lines does not shift the text each time it comes and goes.
function M.prepare_window(win)
  vim.wo[win].signcolumn = "yes:1"
end

--- Opens `buf` in a window according to the `split` option and returns the window.
local function show(buf, split)
  local existing = windows_of(buf)[1]
  if existing then
    vim.api.nvim_set_current_win(existing)
    return existing
  end
  local how = split or config.options.split
  if how == "split" then
    vim.cmd("belowright split")
  elseif how == "tab" then
    vim.cmd("tab split")
  elseif how ~= "current" then
    vim.cmd("belowright vsplit")
  end
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  M.prepare_window(win)
  return win
end

--- A scratch buffer named `name`: not a file, not modifiable, `q` closes it.
function M.scratch(name, lines, filetype)
  local buf = vim.fn.bufnr("^" .. vim.fn.escape(name, "\\/.*$^~[]") .. "$")
  if buf == -1 or not valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  set_text(buf, lines or {})
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  vim.api.nvim_buf_set_keymap(buf, "n", "q", "<cmd>close<CR>", { noremap = true, silent = true, nowait = true })
  return buf
end

-- Linked highlighting ------------------------------------------------------------------

local function clear(buf)
  if valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
    vim.api.nvim_buf_clear_namespace(buf, M.ns_inlined, 0, -1)
  end
end

local function mark_line(buf, line, hl, ns)
  if line >= 0 and line < vim.api.nvim_buf_line_count(buf) then
    vim.api.nvim_buf_set_extmark(buf, ns or M.ns, line, 0, { line_hl_group = hl, priority = 200 })
  end
end

--- Marks a view line inlined through a call on the linked source line: its line highlight
--- and a bar in the sign column, in a colour that stands out on light and dark backgrounds
--- (a line highlight alone is faint in some colour schemes).
local function mark_inlined(buf, line)
  if line >= 0 and line < vim.api.nvim_buf_line_count(buf) then
    vim.api.nvim_buf_set_extmark(buf, M.ns_inlined, line, 0, {
      line_hl_group = config.options.highlight.inlined,
      sign_text = "▎",
      sign_hl_group = config.options.highlight.inlined_bar,
      priority = 200,
    })
  end
end

--- Scrolls the windows showing `buf` so that `line` is visible, without entering them.
local function reveal(buf, line)
  if not config.options.follow_cursor then
    return
  end
  for _, win in ipairs(windows_of(buf)) do
    if win ~= vim.api.nvim_get_current_win() then
      local top = vim.fn.line("w0", win)
      local bottom = vim.fn.line("w$", win)
      if line + 1 < top or line + 1 > bottom then
        vim.api.nvim_win_set_cursor(win, { line + 1, 0 })
        vim.api.nvim_win_call(win, function()
          vim.cmd("normal! zz")
        end)
      end
    end
  end
end

--- Highlights source line `line` of `src` and the lines each of its views made of it.
function M.highlight_source_line(src, line)
  clear(src)
  local stages = by_source[src] or {}
  local any = false
  for _, vbuf in pairs(stages) do
    local view = views[vbuf]
    clear(vbuf)
    if view and line and valid(vbuf) then
      local ranges = view.by_source[line] or {}
      for _, r in ipairs(ranges) do
        for l = r[1], r[2] do
          mark_line(vbuf, l, config.options.highlight.artifact)
        end
      end
      local inlined = line and view.inlined[line] or {}
      for _, r in ipairs(inlined) do
        for l = r[1], r[2] do
          mark_inlined(vbuf, l)
        end
      end
      -- A line whose only code came through a call (`let y = horner(x)`) is linked to that
      -- code: its lines are brought into view and the source line is lit like any other.
      local first = ranges[1] or inlined[1]
      if first then
        any = true
        reveal(vbuf, first[1])
      end
    end
  end
  if any then
    mark_line(src, line, config.options.highlight.source)
  end
end

local function on_source_cursor(src)
  if not next(by_source[src] or {}) then
    return
  end
  M.highlight_source_line(src, vim.api.nvim_win_get_cursor(0)[1] - 1)
end

local function on_view_cursor(vbuf)
  local view = views[vbuf]
  if not view then
    return
  end
  local line = view.by_view[vim.api.nvim_win_get_cursor(0)[1] - 1]
  M.highlight_source_line(view.source, line)
  if line and valid(view.source) then
    reveal(view.source, line)
  end
end

-- Views ------------------------------------------------------------------------------

local function add_range(map, line, seg)
  map[line] = map[line] or {}
  table.insert(map[line], { seg.start, seg["end"] })
end

--- Rebuilds a view's maps from the segments of its artifact: source line -> the view
--- lines written on it (by_source) and inlined through a call on it (inlined), and view
--- line -> source line (by_view).
local function index(view, artifact)
  view.by_source, view.inlined, view.by_view = {}, {}, {}
  local own = lsp.text_document(view.source).uri
  for _, seg in ipairs(artifact.segments or {}) do
    local src = seg.source or {}
    if src.line and (src.uri == nil or src.uri == own) then
      add_range(view.by_source, src.line, seg)
      for l = seg.start, seg["end"] do
        view.by_view[l] = src.line
      end
    end
    local seen = {}
    -- `chain` indexes (from 0) the reply's `chains`, where each inline chain comes once.
    local chain = seg.chain and (artifact.chains or {})[seg.chain + 1] or {}
    for _, frame in ipairs(chain) do
      if frame.uri == own and frame.line ~= src.line and not seen[frame.line] then
        seen[frame.line] = true
        add_range(view.inlined, frame.line, seg)
      end
    end
  end
end

local function apply(view, artifact)
  if not valid(view.bufnr) then
    return
  end
  if view.revision and artifact.revision and artifact.revision < view.revision then
    return -- a newer revision is already shown
  end
  view.revision = artifact.revision
  view.uri = artifact.uri or view.uri
  view.kernels = artifact.kernels or {}
  index(view, artifact)
  vim.b[view.bufnr].kernelscope_uri = view.uri
  vim.b[view.bufnr].kernelscope_revision = view.revision
  -- Each later stage of a compile (resources, SASS) sends the same text again: rewriting it
  -- would count as a change of the cursor line, and the CursorMoved that Neovim fires for it
  -- closes whatever is open at the cursor (the hover of K).
  local lines = split_text(artifact.text)
  if not vim.deep_equal(lines, vim.api.nvim_buf_get_lines(view.bufnr, 0, -1, false)) then
    set_text(view.bufnr, lines)
  end
  -- Re-highlight for wherever the source cursor is now.
  local win = windows_of(view.source)[1]
  if win then
    M.highlight_source_line(view.source, vim.api.nvim_win_get_cursor(win)[1] - 1)
  end
end

--- The `filters` of every request about a view: each filter of the options, on or off.
function M.filters()
  local filters = {}
  for _, name in ipairs(lsp.filters) do
    filters[name] = config.options.filters[name] == true
  end
  return filters
end

--- Asks the server for every open view again (after a filter changed).
function M.refresh_all()
  for vbuf in pairs(views) do
    M.refresh(vbuf)
  end
end

--- In a view that never had an artifact, why it stays empty: its file does not compile
--- (`status`, the failed kernelscope/status). A view that had one keeps its last.
local function show_failed(view, status)
  if view and not view.revision and valid(view.bufnr) then
    local lines = { "kernelscope: " .. view.stage .. " is not available: the file does not compile" }
    vim.list_extend(lines, vim.split(status.message or "", "\n", { plain = true }))
    table.insert(lines, "(see its diagnostics; this view fills in after the next compile that succeeds)")
    set_text(view.bufnr, lines)
  end
end

--- Asks the server for the view's artifact again and shows it when it arrives.
function M.refresh(vbuf, on_done)
  local view = views[vbuf]
  if not view or not valid(view.source) then
    return
  end
  local client = lsp.client(view.source)
  if not client then
    lsp.notify("no kernelscope server attached to the source buffer", vim.log.levels.WARN)
    return
  end
  local params = { textDocument = lsp.text_document(view.source), stage = view.stage, filters = M.filters() }
  lsp.request(client, lsp.methods.artifact, params, function(err, result)
    if err then
      local st = M.status[params.textDocument.uri]
      if st and st.state == "failed" then
        show_failed(view, st)
      elseif not view.revision and valid(view.bufnr) then
        set_text(view.bufnr, { "kernelscope: " .. view.stage .. " is not available:", lsp.error_message(err) })
      end
      -- While a compile is pending, or when a revision was superseded (ContentModified),
      -- the next `ready` status brings the artifact: nothing for the user to act on; a
      -- failed compile was told once already.
      local pending = not st or st.state == "queued" or st.state == "compiling" or st.state == "failed"
      if err.code ~= -32801 and not pending then
        lsp.notify(view.stage .. ": " .. lsp.error_message(err), vim.log.levels.WARN)
      end
    elseif result then
      apply(view, result)
    end
    if on_done then
      on_done(err, result)
    end
  end, view.source)
end

--- Drops what is known of view buffer `vbuf` (it was wiped).
function M.forget(vbuf)
  local view = views[vbuf]
  if not view then
    return
  end
  views[vbuf] = nil
  local stages = by_source[view.source]
  if stages then
    stages[view.stage] = nil
    if not next(stages) then
      by_source[view.source] = nil
      clear(view.source)
    end
  end
end

local function view_name(src, stage)
  return "kernelscope://" .. stage .. vim.api.nvim_buf_get_name(src)
end

local function new_view(src, stage)
  local buf = M.scratch(view_name(src, stage), { "kernelscope: waiting for " .. stage .. " ..." })
  vim.bo[buf].filetype = lsp.filetypes[stage] or "text"
  local view = { bufnr = buf, source = src, stage = stage, by_source = {}, inlined = {}, by_view = {}, kernels = {} }
  views[buf] = view
  by_source[src] = by_source[src] or {}
  by_source[src][stage] = buf
  vim.b[buf].kernelscope_stage = stage
  vim.b[buf].kernelscope_source = src

  local hover_key = config.options.keys.hover or "K"
  vim.keymap.set("n", hover_key, function()
    M.hover(buf)
  end, { buffer = buf, desc = "kernelscope: explain this instruction" })
  vim.api.nvim_create_autocmd("CursorMoved", {
    group = group,
    buffer = buf,
    callback = function()
      on_view_cursor(buf)
    end,
  })
  vim.api.nvim_create_autocmd({ "BufWipeout", "BufDelete" }, {
    group = group,
    buffer = buf,
    callback = function()
      M.forget(buf)
    end,
  })
  if not vim.b[src].kernelscope_tracked then
    vim.b[src].kernelscope_tracked = true
    vim.api.nvim_create_autocmd("CursorMoved", {
      group = group,
      buffer = src,
      callback = function()
        on_source_cursor(src)
      end,
    })
    vim.api.nvim_create_autocmd("BufWipeout", {
      group = group,
      buffer = src,
      callback = function()
        for _, vbuf in pairs(by_source[src] or {}) do
          if valid(vbuf) then
            vim.schedule(function()
              pcall(vim.api.nvim_buf_delete, vbuf, { force = true })
            end)
          end
        end
      end,
    })
  end
  return view
end

--- A new (empty) view of `stage` for source buffer `src`, not yet shown nor requested.
M.create = new_view

--- The source buffer behind `buf`: itself, or the source of the view it is.
function M.source_of(buf)
  local view = views[buf]
  return view and view.source or buf
end

function M.view(buf)
  return views[buf]
end

--- The open view of `stage` for source `src`, if any.
function M.find(src, stage)
  local vbuf = (by_source[src] or {})[stage]
  if vbuf and not valid(vbuf) then
    M.forget(vbuf)
    return nil
  end
  return vbuf and views[vbuf] or nil
end

--- Opens (or shows again) the `stage` view of source buffer `src`.
function M.open(src, stage, opts)
  opts = opts or {}
  if not lsp.client(src) then
    lsp.notify("no kernelscope server is attached to this buffer", vim.log.levels.ERROR)
    return
  end
  local view = M.find(src, stage) or new_view(src, stage)
  local origin = vim.api.nvim_get_current_win()
  show(view.bufnr, opts.split)
  if opts.keep_focus ~= false then
    -- Stay in the source so the cursor drives the highlighting; the view follows.
    vim.api.nvim_set_current_win(origin)
  end
  M.refresh(view.bufnr, opts.on_done)
  return view.bufnr
end

--- Handles kernelscope/status: remembers it and refreshes the source's views when ready.
function M.on_status(params)
  if type(params) ~= "table" or not params.uri then
    return
  end
  local previous = M.status[params.uri]
  M.status[params.uri] = params
  for src, stages in pairs(by_source) do
    if valid(src) and lsp.text_document(src).uri == params.uri then
      if params.state == "ready" then
        local ready = {}
        for _, s in ipairs(params.stages or {}) do
          ready[s] = true
        end
        for stage, vbuf in pairs(stages) do
          if ready[stage] or not params.stages then
            M.refresh(vbuf)
          end
        end
      elseif params.state == "failed" then
        -- A view that never had an artifact says why it stays empty (instead of the
        -- "not finished yet" it asked with); one that had keeps its last one.
        for _, vbuf in pairs(stages) do
          show_failed(views[vbuf], params)
        end
        if not (previous and previous.state == "failed") then
          lsp.notify("compile failed" .. (params.message and (": " .. params.message) or ""), vim.log.levels.WARN)
        end
      end
    end
  end
end

-- Hover in a view ----------------------------------------------------------------------

--- Asks the server what the instruction under the cursor of view `vbuf` means.
function M.hover(vbuf)
  local view = views[vbuf]
  if not view or not view.uri then
    return
  end
  local client = lsp.client(view.source)
  if not client then
    return
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  local params = {
    textDocument = { uri = view.uri },
    position = { line = pos[1] - 1, character = pos[2] },
  }
  lsp.request(client, "textDocument/hover", params, function(err, result)
    if err then
      lsp.notify(lsp.error_message(err), vim.log.levels.WARN)
      return
    end
    if not (result and result.contents) then
      lsp.notify("no information for this line")
      return
    end
    local lines = vim.lsp.util.convert_input_to_markdown_lines(result.contents)
    if vim.lsp.util.trim_empty_lines then
      lines = vim.lsp.util.trim_empty_lines(lines)
    end
    if vim.tbl_isempty(lines) then
      return
    end
    vim.lsp.util.open_floating_preview(lines, "markdown", { focus_id = "kernelscope_hover" })
  end, view.source)
end

function M.setup_highlights()
  -- `highlight default link` rather than nvim_set_hl: Neovim 0.7 has no `default` key there.
  vim.cmd("highlight default link KernelscopeSource Visual")
  vim.cmd("highlight default link KernelscopeArtifact Visual")
  vim.cmd("highlight default link KernelscopeInlined CursorLine")
  -- The bar beside inlined lines: the warning colour, which every default colour scheme
  -- keeps readable on its own background, light or dark.
  vim.cmd("highlight default link KernelscopeInlinedBar WarningMsg")
end

return M
