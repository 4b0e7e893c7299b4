-- kernelscope.profile: `:Kernelscope run` / `:Kernelscope profile` (and the Run / Profile
-- code lenses): a kernel on a GPU through the server's kernelscope/run and kernelscope/profile.
--
-- Progress comes as `$/progress` on a token of ours and is echoed; `:Kernelscope cancel`
-- sends `$/cancelRequest` (the server kills the runner and ncu). After a profile the hot
-- lines get the server's inlay hints (`90% stalls · long scoreboard`) and a heat highlight,
-- and every line of the file's PTX/SASS views the heat of the source line it maps to (the
-- view's own segment map); the first edit of the file clears them, as the server drops its
-- hints then. Without a GPU, `:Kernelscope heat [issueCycles|live|local|off]` paints the same
-- heat from the server's static figures (kernelscope/lineCosts' `heat`) and names the lines to
-- look at first; a profile takes its place. A profile of a file profiled before (the server
-- keeps each one) also carries each line's change since the last profile: its hint
-- (`−75% stalls since last profile`) is the server's, and `:Kernelscope heat delta` paints the
-- lines that got better (KernelscopeBetter1/2) or worse (KernelscopeWorse1/2) instead of the
-- heat (`:Kernelscope heat profile` goes back).
local annotations = require("kernelscope.annotations")
local lsp = require("kernelscope.lsp")
local views = require("kernelscope.views")

local M = {}

M.ns = vim.api.nvim_create_namespace("kernelscope_profile")
M.levels = { "KernelscopeHeat1", "KernelscopeHeat2", "KernelscopeHeat3", "KernelscopeHeat4" }
-- The delta heat: a change in stall samples of at least 5%, then of at least 50%.
M.better = { "KernelscopeBetter1", "KernelscopeBetter2" }
M.worse = { "KernelscopeWorse1", "KernelscopeWorse2" }

-- What was said on our progress tokens, newest last (for :messages and tests).
M.progress = {}
-- The request in flight: { client, id, what }.
local running = nil
-- Per source buffer: { shares = { [line0] = share }, hottest = share }.
local shown = {}
local next_token = 0

local function level_of(share, hottest)
  if not share or share <= 0 or hottest <= 0 then
    return nil
  end
  return math.min(#M.levels, math.floor(share / hottest * #M.levels - 1e-9) + 1)
end

local function paint(buf, line, hl)
  if line < vim.api.nvim_buf_line_count(buf) then
    vim.api.nvim_buf_set_extmark(buf, M.ns, line, 0, { line_hl_group = hl, priority = 150 })
  end
end

--- The delta heat's group for a relative change of stall samples (-0.4: 40% fewer), or nil.
local function delta_group(change)
  if not change or math.abs(change) < 0.05 then
    return nil
  end
  local groups = change < 0 and M.better or M.worse
  return groups[math.abs(change) >= 0.5 and 2 or 1]
end

--- Paints source buffer `src` and its PTX/SASS views from its shown profile (in delta mode
--- the source's lines by their change since the last profile).
function M.paint(src)
  local p = shown[src]
  if not p then
    return
  end
  vim.api.nvim_buf_clear_namespace(src, M.ns, 0, -1)
  if p.delta_mode then
    for line, d in pairs(p.deltas) do
      local group = delta_group(d.stallChange)
      if group then
        paint(src, line, group)
      end
    end
    return
  end
  for line, share in pairs(p.shares) do
    local level = level_of(share, p.hottest)
    if level then
      paint(src, line, M.levels[level])
    end
  end
  for _, stage in ipairs({ "ptx", "sass" }) do
    local view = views.find(src, stage)
    if view and vim.api.nvim_buf_is_valid(view.bufnr) then
      vim.api.nvim_buf_clear_namespace(view.bufnr, M.ns, 0, -1)
      for vline, sline in pairs(view.by_view or {}) do
        local level = level_of(p.shares[sline], p.hottest)
        if level then
          paint(view.bufnr, vline, M.levels[level])
        end
      end
    end
  end
end

--- Clears the profile of `src` (its heat, its views' heat and the hints drawn with it).
function M.clear(src)
  if not shown[src] then
    return
  end
  shown[src] = nil
  if vim.api.nvim_buf_is_valid(src) then
    vim.api.nvim_buf_clear_namespace(src, M.ns, 0, -1)
    -- The server has dropped the profile's hints; the counts return with the next compile.
    vim.api.nvim_buf_clear_namespace(src, annotations.ns, 0, -1)
  end
  for _, stage in ipairs({ "ptx", "sass" }) do
    local view = views.find(src, stage)
    if view and vim.api.nvim_buf_is_valid(view.bufnr) then
      vim.api.nvim_buf_clear_namespace(view.bufnr, M.ns, 0, -1)
    end
  end
end

--- The heat highlight group of 0-based `line` of `src` (the delta heat's in delta mode), or nil.
function M.heat(src, line)
  local p = shown[src]
  if p and p.delta_mode then
    return delta_group((p.deltas[line] or {}).stallChange)
  end
  local level = p and level_of(p.shares[line], p.hottest)
  return level and M.levels[level]
end

--- The change of 0-based `line` of `src` since the last profile: { hint, stallChange }, or nil.
function M.delta(src, line)
  return ((shown[src] or {}).deltas or {})[line]
end

--- `:Kernelscope heat delta` / `heat profile`: the shown profile's lines coloured by their
--- change since the last profile, or by their share of the stall samples. Returns whether
--- delta mode is on.
function M.delta_heat(src, on)
  local p = shown[src]
  if not p or p.static then
    lsp.notify("no profile is shown", vim.log.levels.WARN)
    return false
  end
  if on and next(p.deltas) == nil then
    lsp.notify("no earlier profile of this kernel with this spec: profile it again after an edit")
    return false
  end
  p.delta_mode = on
  M.paint(src)
  return on
end

--- The lines with heat in `src`, 0-based (for tests and statuslines).
function M.hot_lines(src)
  local out = {}
  for line in pairs((shown[src] or {}).shares or {}) do
    table.insert(out, line)
  end
  table.sort(out)
  return out
end

--- Ends the shown heat of `src` at the first change of its text.
local function clear_on_edit(src)
  vim.api.nvim_buf_attach(src, false, {
    on_lines = function()
      vim.schedule(function()
        M.clear(src)
      end)
      return true -- detach
    end,
  })
end

--- Shows `lines` ({ line, share }) as the heat of `src` (`static`: not measured), painted at
--- once and ended by the first edit.
local function show_heat(src, lines, static, deltas)
  local p = { shares = {}, hottest = 0, static = static, deltas = {} }
  for _, l in ipairs(lines or {}) do
    p.shares[l.line] = l.share
    p.hottest = math.max(p.hottest, l.share)
  end
  for _, d in ipairs(deltas or {}) do
    p.deltas[d.line] = { hint = d.hint, stallChange = d.stallChange }
  end
  local fresh = shown[src] == nil
  -- Delta mode stays on from one profile to the next.
  p.delta_mode = not static and next(p.deltas) ~= nil and (shown[src] or {}).delta_mode or nil
  M.clear(src)
  shown[src] = p
  M.paint(src)
  if fresh then
    clear_on_edit(src)
  end
end

--- `:Kernelscope heat [FIGURE]`: colours `src` and its PTX/SASS views by a static figure
--- ("issueCycles", the default, "live" or "local"; "off" clears) and tells the lines to look
--- at first. Returns the lines painted (0-based), for tests.
function M.static_heat(src, figure)
  figure = figure or "issueCycles"
  if figure == "off" then
    M.clear(src)
    return {}
  end
  if not ({ issueCycles = true, live = true, ["local"] = true })[figure] then
    lsp.notify("heat: issueCycles, live, local or off", vim.log.levels.ERROR)
    return
  end
  local client = lsp.client(src)
  if not client then
    lsp.notify("no kernelscope server is attached to this buffer", vim.log.levels.ERROR)
    return
  end
  local result, err = lsp.request_sync(client, lsp.methods.line_costs, { textDocument = lsp.text_document(src) }, 10000, src)
  if err or not result then
    lsp.notify("heat: " .. lsp.error_message(err or "no result"), vim.log.levels.WARN)
    return
  end
  if shown[src] and not shown[src].static then
    lsp.notify("a profile is shown: its measured heat stays (`:Kernelscope heat off` after an edit)")
    return M.hot_lines(src)
  end
  show_heat(src, (result.heat or {})[figure], true)
  local first = {}
  for _, l in ipairs(result.lookFirst or {}) do
    table.insert(first, "line " .. (l.line + 1) .. ": " .. l.why)
  end
  if #first > 0 then
    lsp.notify("look first at " .. table.concat(first, "; "))
  end
  return M.hot_lines(src)
end

local function show(src, result)
  local editor = result.editor or {}
  if not editor.current then
    lsp.notify("the file changed while it was profiled; profile it again", vim.log.levels.WARN)
    return
  end
  show_heat(src, editor.lines, false, editor.deltas)
  annotations.refresh_hints(src)
  local top = (editor.lines or {})[1]
  if top then
    local delta = M.delta(src, top.line)
    lsp.notify(result.kernel.name .. ": line " .. (top.line + 1) .. " " .. top.headline
      .. ((delta and delta.hint ~= "") and (", " .. delta.hint) or ""))
  end
end

local function report(result)
  local pct = ""
  if result.device.peakBandwidth > 0 then
    pct = string.format(" (%.1f%% of peak)", 100 * result.bandwidth / result.device.peakBandwidth)
  end
  lsp.notify(string.format("%s on %s: %.1f us median over %d runs, %.1f GB/s%s", result.launch.kernel,
    result.device.name, result.timeMs.median * 1000, result.runs, result.bandwidth / 1e9, pct))
end

--- `$/progress` of the server: ours are echoed and kept; returns true when it was ours.
function M.on_progress(params)
  local token = params and params.token
  if type(token) ~= "string" or not token:match("^kernelscope%-nvim%-") then
    return false
  end
  local value = params.value or {}
  local line = (value.kind or "") .. ": " .. (value.message or "")
  table.insert(M.progress, line)
  if value.kind ~= "end" then
    vim.api.nvim_echo({ { "kernelscope: " .. (value.message or "") .. " (:Kernelscope cancel)" } }, false, {})
  end
  return true
end

local function send(src, client, profile, kernel)
  next_token = next_token + 1
  local token = "kernelscope-nvim-" .. next_token
  local what = (profile and "profile " or "run ") .. kernel
  local ok, id = lsp.request(client, profile and "kernelscope/profile" or "kernelscope/run", {
    textDocument = lsp.text_document(src),
    kernel = kernel,
    workDoneToken = token,
  }, function(err, result)
    running = nil
    if err then
      if err.code ~= -32800 then -- RequestCancelled: the user asked
        lsp.notify(what .. ": " .. lsp.error_message(err), vim.log.levels.ERROR)
      else
        lsp.notify(what .. ": cancelled")
      end
      return
    end
    if profile then
      show(src, result)
    else
      report(result)
    end
  end, src)
  if ok then
    running = { client = client, id = id, what = what }
  end
end

--- `:Kernelscope run [KERNEL]` / `:Kernelscope profile [KERNEL]` on the current source; the
--- kernel is the only one of the file when not given.
function M.launch(profile, kernel, src)
  src = src or views.source_of(vim.api.nvim_get_current_buf())
  local client = lsp.client(src)
  if not client then
    lsp.notify("no kernelscope server is attached to this buffer", vim.log.levels.ERROR)
    return
  end
  if running then
    lsp.notify(running.what .. " is still running (:Kernelscope cancel)", vim.log.levels.WARN)
    return
  end
  if kernel and kernel ~= "" then
    return send(src, client, profile, kernel)
  end
  lsp.request(client, lsp.methods.kernels, { textDocument = lsp.text_document(src) }, function(err, result)
    local kernels = (not err and result and result.kernels) or {}
    if #kernels == 1 then
      return send(src, client, profile, kernels[1].name)
    end
    local names = {}
    for _, k in ipairs(kernels) do
      table.insert(names, k.name)
    end
    lsp.notify(#names == 0 and "this file has no kernels (or has not compiled yet)"
      or ("several kernels; name one: " .. table.concat(names, ", ")), vim.log.levels.WARN)
  end, src)
end

--- `:Kernelscope cancel`: stops the run or profile in flight.
function M.cancel()
  if not running then
    lsp.notify("nothing is running")
    return
  end
  local client = running.client
  if vim.fn.has("nvim-0.11") == 1 then
    client:cancel_request(running.id)
  else
    client.cancel_request(running.id)
  end
end

--- The Run / Profile lenses: `{ uri, kernel }`.
local function lens_command(profile)
  return function(command)
    local args = (command.arguments or {})[1] or {}
    M.launch(profile, args.kernel, vim.uri_to_bufnr(args.uri))
  end
end

function M.setup()
  vim.lsp.commands["kernelscope.run"] = lens_command(false)
  vim.lsp.commands["kernelscope.profile"] = lens_command(true)
  local heat = { "#4a2323", "#6b2828", "#8c2c2c", "#b03030" }
  for i, group in ipairs(M.levels) do
    vim.api.nvim_set_hl(0, group, { default = true, bg = heat[i], ctermbg = ({ 52, 52, 88, 124 })[i] })
  end
  for i, bg in ipairs({ "#1f3d26", "#27603a" }) do
    vim.api.nvim_set_hl(0, M.better[i], { default = true, bg = bg, ctermbg = ({ 22, 28 })[i] })
  end
  for i, bg in ipairs({ "#4a3a1f", "#6b4f1f" }) do
    vim.api.nvim_set_hl(0, M.worse[i], { default = true, bg = bg, ctermbg = ({ 58, 94 })[i] })
  end
end

return M
