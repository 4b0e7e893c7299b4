-- kernelscope.commands: the `:Kernelscope <sub>` command, one table entry per
-- subcommand, each a thin call into the server.
local config = require("kernelscope.config")
local lsp = require("kernelscope.lsp")
local views = require("kernelscope.views")

local M = {}

local function source_buffer()
  return views.source_of(vim.api.nvim_get_current_buf())
end

--- The kernelscope client of the current source, or nil after telling the user why.
local function client_for(src)
  local client = lsp.client(src)
  if not client then
    lsp.notify("no kernelscope server is attached to this buffer", vim.log.levels.ERROR)
  end
  return client
end

local function open_stage(stage)
  return function()
    require("kernelscope").open(stage)
  end
end

local function pad(s, n)
  s = tostring(s)
  return s .. string.rep(" ", math.max(0, n - #s))
end

--- Formats kernelscope/kernels as a table, one kernel per line after two header lines.
function M.format_kernels(result)
  local lines = {
    "kernels for " .. tostring(result.arch or "?"),
    pad("kernel", 28) .. pad("regs", 6) .. pad("spill st/ld", 13) .. pad("smem", 8) .. pad("local", 7)
      .. pad("ptx", 6) .. pad("sass", 6) .. "occupancy",
  }
  for _, k in ipairs(result.kernels or {}) do
    local occ = k.occupancy or {}
    local ins = k.instructions or {}
    local occupancy = occ.percent
        and string.format("%s%% @%s (%s)", occ.percent, occ.blockSize or "?", occ.limiter or "?")
      or "-"
    table.insert(
      lines,
      pad(k.demangled or k.name, 28)
        .. pad(k.registers or "-", 6)
        .. pad(string.format("%s/%s", k.spillStores or 0, k.spillLoads or 0), 13)
        .. pad(string.format("%sB", k.sharedMemory or 0), 8)
        .. pad(string.format("%sB", k.localMemory or 0), 7)
        .. pad(ins.ptx or "-", 6)
        .. pad(ins.sass or "-", 6)
        .. occupancy
    )
  end
  return lines
end

local function kernels()
  local src = source_buffer()
  local client = client_for(src)
  if not client then
    return
  end
  local result, err = lsp.request_sync(client, lsp.methods.kernels, { textDocument = lsp.text_document(src) }, 10000, src)
  if err or not result then
    lsp.notify("kernels: " .. lsp.error_message(err or "no result"), vim.log.levels.WARN)
    return
  end
  local buf = views.scratch("kernelscope://kernels" .. vim.api.nvim_buf_get_name(src), M.format_kernels(result), "kernelscope_kernels")
  -- <CR> on a kernel's row jumps to its definition in the source.
  vim.keymap.set("n", "<CR>", function()
    local k = (result.kernels or {})[vim.api.nvim_win_get_cursor(0)[1] - 2]
    if not (k and k.range and vim.api.nvim_buf_is_valid(src)) then
      return
    end
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_buf(win) == src then
        vim.api.nvim_set_current_win(win)
        vim.api.nvim_win_set_cursor(win, { k.range.start.line + 1, k.range.start.character })
        return
      end
    end
  end, { buffer = buf, desc = "kernelscope: go to kernel" })
  -- Across the whole width (the current window may be one narrow column of tiled stages),
  -- unwrapped: a wrapped row would push the last ones out as `@@@`.
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, buf)
  vim.wo.wrap = false
  vim.api.nvim_win_set_height(0, math.min(#(result.kernels or {}) + 2, 12))
  return buf
end

--- Quickfix items from kernelscope/lineCosts: each kernel's summary at its peak line, then
--- the lines to look at first, then every line with local memory.
function M.cost_items(result, bufnr)
  local items = {}
  for _, k in ipairs(result.kernels or {}) do
    local line = (k.peakLines or {})[1]
    table.insert(items, { bufnr = bufnr, lnum = (line or 0) + 1, text = k.name .. ": " .. (k.summary or "") })
  end
  for _, l in ipairs(result.lookFirst or {}) do
    table.insert(items, { bufnr = bufnr, lnum = l.line + 1, text = "look first: " .. l.why })
  end
  for _, c in ipairs(result.lines or {}) do
    if (c.ldl or 0) + (c.stl or 0) > 0 then
      table.insert(items, { bufnr = bufnr, lnum = c.line + 1, text = c.text })
    end
  end
  return items
end

local function costs()
  local src = source_buffer()
  local client = client_for(src)
  if not client then
    return
  end
  local result, err = lsp.request_sync(client, lsp.methods.line_costs, { textDocument = lsp.text_document(src) }, 10000, src)
  if err or not result then
    lsp.notify("costs: " .. lsp.error_message(err or "no result"), vim.log.levels.WARN)
    return
  end
  local items = M.cost_items(result, src)
  vim.fn.setqflist({}, " ", { title = "kernelscope costs", items = items })
  vim.cmd("copen")
  return items
end

--- Quickfix items from kernelscope/valueFlow, in the SASS view `vbuf`: where each register the
--- instruction reads was written, then which instructions read what it writes.
function M.flow_items(result, vbuf)
  local items = {}
  local function add(site, text)
    if site.line then
      local src = site.source and (" — line " .. (site.source.range.start.line + 1)) or ""
      table.insert(items, {
        bufnr = vbuf,
        lnum = site.line + 1,
        text = string.format("%s %s at %s%s", text, site.opcode, site.address, src),
      })
    end
  end
  for _, s in ipairs(result.sources or {}) do
    for _, d in ipairs(s.definitions or {}) do
      add(d, s.register .. " from")
    end
  end
  for _, r in ipairs(result.results or {}) do
    for _, u in ipairs(r.uses or {}) do
      add(u, r.register .. " used by")
    end
  end
  return items
end

--- `:Kernelscope flow` in a SASS view: the instruction under the cursor's value flow in the
--- quickfix list (its definitions, then its uses), jumping to the first.
local function flow()
  local vbuf = vim.api.nvim_get_current_buf()
  local view = views.view(vbuf)
  if not (view and view.stage == "sass" and view.uri) then
    lsp.notify("flow: put the cursor on an instruction of a SASS view (:Kernelscope sass)", vim.log.levels.WARN)
    return
  end
  local client = client_for(view.source)
  if not client then
    return
  end
  local params = {
    textDocument = { uri = view.uri },
    line = vim.api.nvim_win_get_cursor(0)[1] - 1,
    filters = views.filters(),
  }
  local result, err = lsp.request_sync(client, lsp.methods.value_flow, params, 10000, view.source)
  if err or not result then
    lsp.notify("flow: " .. lsp.error_message(err or "no result"), vim.log.levels.WARN)
    return
  end
  if not result.instruction then
    lsp.notify("flow: this line is no SASS instruction")
    return
  end
  local items = M.flow_items(result, vbuf)
  vim.fn.setqflist({}, " ", { title = "kernelscope flow: " .. result.text, items = items })
  if #items > 0 then
    vim.cmd("copen")
    vim.cmd("cfirst")
  end
  lsp.notify(result.text)
  return items
end

local function diff(args)
  local stage = lsp.stages[args[1] or "ptx"] or args[1]
  local src = source_buffer()
  local client = client_for(src)
  if not client then
    return
  end
  local params = { textDocument = lsp.text_document(src), stage = stage }
  if args[2] then
    params.base = tonumber(args[2])
  end
  local result, err = lsp.request_sync(client, lsp.methods.diff, params, 10000, src)
  if err or not result then
    lsp.notify("diff: " .. lsp.error_message(err or "no result"), vim.log.levels.WARN)
    return
  end
  local lines = views.split_text(result.unified)
  if #lines == 0 then
    lines = { string.format("no %s change since the previous save", stage) }
  end
  local buf = views.scratch("kernelscope://diff/" .. stage .. vim.api.nvim_buf_get_name(src), lines, "diff")
  vim.cmd("belowright vsplit")
  vim.api.nvim_win_set_buf(0, buf)
  return buf
end

--- Sets the target architecture: through the server's `kernelscope.setArch` command when
--- it has one, otherwise as a settings change (workspace/didChangeConfiguration).
-- `arch` "default" unsets the choice: the crate's arch, else the server's default.
local function set_arch(client, src, arch)
  local value = arch ~= "default" and arch or vim.NIL
  if lsp.has_command(client, "kernelscope.setArch") then
    local _, err = lsp.request_sync(client, "workspace/executeCommand", {
      command = "kernelscope.setArch",
      arguments = { value },
    }, 10000, src)
    return err
  end
  local settings = vim.tbl_extend("force", config.options.settings or {}, { arch = value })
  config.options.settings = settings
  client.config.settings = { kernelscope = settings }
  lsp.notify_server(client, "workspace/didChangeConfiguration", { settings = { kernelscope = settings } })
end

local function arch(args)
  local src = source_buffer()
  local client = client_for(src)
  if not client then
    return
  end
  if args[1] then
    local err = set_arch(client, src, args[1])
    if err then
      lsp.notify("arch: " .. lsp.error_message(err), vim.log.levels.ERROR)
    else
      lsp.notify("arch set to " .. args[1])
    end
    return args[1]
  end
  local result, err = lsp.request_sync(client, lsp.methods.kernels, { textDocument = lsp.text_document(src) }, 10000, src)
  if err or not result then
    lsp.notify("arch: " .. lsp.error_message(err or "no result"), vim.log.levels.WARN)
    return
  end
  lsp.notify("arch: " .. tostring(result.arch))
  return result.arch
end

--- One paragraph on the server and on the last compile of the current buffer.
function M.status_lines(src)
  local lines = {}
  local client = lsp.client(src)
  if not client then
    return { "kernelscope: not attached to this buffer" }
  end
  local info = client.server_info or {}
  table.insert(lines, string.format("kernelscope %s (client %d, root %s)", info.version or "", client.id, client.config.root_dir or "?"))
  -- Work in progress, such as building the nvptx `core` on first use ($/progress).
  if vim.lsp.status then
    local progress = vim.lsp.status()
    if progress ~= "" then
      table.insert(lines, progress)
    end
  elseif vim.lsp.util.get_progress_messages then
    for _, m in ipairs(vim.lsp.util.get_progress_messages()) do
      if m.name == lsp.name and not m.done then
        table.insert(lines, string.format("%s %s%s", m.title or "", m.message or "", m.percentage and string.format(" (%d%%)", m.percentage) or ""))
      end
    end
  end
  local st = views.status[lsp.text_document(src).uri]
  if not st then
    table.insert(lines, "no compile reported yet for this buffer")
  else
    table.insert(lines, string.format("compile: %s%s", st.state, st.durationMs and string.format(" in %d ms", st.durationMs) or ""))
    if st.stages and #st.stages > 0 then
      table.insert(lines, "stages ready: " .. table.concat(st.stages, ", "))
    end
    if st.message and st.message ~= "" then
      table.insert(lines, st.message)
    end
  end
  return lines
end

local function status()
  local lines = M.status_lines(source_buffer())
  vim.notify(table.concat(lines, "\n"), vim.log.levels.INFO)
  return lines
end

local function rebuild()
  local src = source_buffer()
  local client = client_for(src)
  if not client then
    return
  end
  lsp.request(client, "workspace/executeCommand", {
    command = "kernelscope.rebuild",
    arguments = { lsp.text_document(src).uri },
  }, function(err)
    if err then
      lsp.notify("rebuild: " .. lsp.error_message(err), vim.log.levels.ERROR)
    end
  end, src)
end

--- `:Kernelscope filter [NAME [on|off]]`: toggles (or sets) a filter of the stage views,
--- remembers it for later sessions and refreshes the views; without a name, lists the
--- filters and their state. Returns the state.
local function filter(args)
  local name, value = args[1], args[2]
  if not name then
    local lines = {}
    for _, n in ipairs(lsp.filters) do
      table.insert(lines, string.format("%s %s", config.options.filters[n] and "on " or "off", n))
    end
    lsp.notify("filters:\n" .. table.concat(lines, "\n"))
    return config.options.filters
  end
  if not vim.tbl_contains(lsp.filters, name) then
    lsp.notify("no filter '" .. name .. "' (" .. table.concat(lsp.filters, ", ") .. ")", vim.log.levels.ERROR)
    return
  end
  local on = not config.options.filters[name]
  if value == "on" or value == "off" then
    on = value == "on"
  end
  config.remember_filter(name, on)
  views.refresh_all()
  lsp.notify(string.format("filter %s %s", name, on and "on" or "off"))
  return on
end

-- name -> { run(args), complete for its first argument }
M.subcommands = {
  ptx = { run = open_stage("ptx") },
  sass = { run = open_stage("sass") },
  llvm = { run = open_stage("llvm-ir") },
  mir = { run = open_stage("mir") },
  diff = { run = diff, complete = { "ptx", "sass", "llvm", "mir" } },
  kernels = { run = kernels },
  costs = { run = costs },
  -- Colour the lines by a static cost (no GPU): `:Kernelscope heat [issueCycles|live|local|off]`;
  -- a shown profile's by its change since the last profile: `heat delta` (`heat profile`: back).
  heat = {
    run = function(args)
      local profile = require("kernelscope.profile")
      if args[1] == "delta" or args[1] == "profile" then
        return profile.delta_heat(source_buffer(), args[1] == "delta")
      end
      return profile.static_heat(source_buffer(), args[1])
    end,
    complete = { "issueCycles", "live", "local", "off", "delta", "profile" },
  },
  -- In a SASS view: where the cursor's instruction's values come from and go (quickfix).
  flow = { run = flow },
  arch = {
    run = arch,
    -- The server's arch catalogue: the architectures its validation takes.
    complete = function()
      return vim.list_extend({ "default" }, lsp.archs())
    end,
  },
  -- Source | PTX | SASS (or the stages given) tiled, following the current buffer.
  stages = {
    run = function(args)
      return require("kernelscope.stages").open(args)
    end,
    complete = { "mir", "llvm", "ptx", "sass" },
  },
  status = { run = status },
  filter = { run = filter, complete = lsp.filters },
  -- A kernel on a GPU (kernelscope.profile): `:Kernelscope run [KERNEL]`, `profile`, `cancel`.
  run = {
    run = function(args)
      return require("kernelscope.profile").launch(false, args[1])
    end,
  },
  profile = {
    run = function(args)
      return require("kernelscope.profile").launch(true, args[1])
    end,
  },
  cancel = {
    run = function()
      return require("kernelscope.profile").cancel()
    end,
  },
  rebuild = { run = rebuild },
  -- The passes that changed a kernel (kernelscope.passes; also `:KernelscopePasses`).
  passes = {
    run = function(args)
      return require("kernelscope.passes").open(args[1])
    end,
  },
}

function M.run(line)
  local args = vim.split(vim.trim(line or ""), "%s+")
  local name = table.remove(args, 1)
  local sub = M.subcommands[name]
  if not sub then
    local names = vim.tbl_keys(M.subcommands)
    table.sort(names)
    lsp.notify("usage: :Kernelscope " .. table.concat(names, "|"), vim.log.levels.ERROR)
    return
  end
  return sub.run(args)
end

local function complete(arglead, cmdline)
  local words = vim.split(cmdline, "%s+")
  local candidates
  if #words <= 2 then
    candidates = vim.tbl_keys(M.subcommands)
  else
    local sub = M.subcommands[words[2]]
    candidates = sub and sub.complete or {}
    if type(candidates) == "function" then
      candidates = candidates()
    end
  end
  table.sort(candidates)
  return vim.tbl_filter(function(c)
    return c:sub(1, #arglead) == arglead
  end, candidates)
end

function M.register()
  vim.api.nvim_create_user_command("Kernelscope", function(opts)
    M.run(opts.args)
  end, { nargs = "+", complete = complete, desc = "kernelscope: stage views and kernel info" })
  require("kernelscope.passes").register()
end

return M
