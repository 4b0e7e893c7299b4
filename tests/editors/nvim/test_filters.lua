-- End-to-end test of the stage views' filters: with the default filters the PTX view has
-- no `.loc` lines, and `:Kernelscope filter debugLocations` brings them back; with the
-- filters on and off, the lines lit for the SAXPY line are the lines the server's
-- kernelscope/lineMap gives for the same filters (and lines inside that run that map to no
-- source, such as a `.loc`), and kernelscope/sourceLocation of each leads back to it.
--
-- Runs in `nvim --headless --clean` (see run.sh). Environment: KERNELSCOPE_BIN, KS_SOURCE
-- (a writable copy of examples/saxpy.rs), KS_RESULTS, KS_TIMEOUT_MS.
local server = assert(os.getenv("KERNELSCOPE_BIN"), "KERNELSCOPE_BIN is not set")
local saxpy = assert(os.getenv("KS_SOURCE"), "KS_SOURCE is not set")
local SAXPY_LINE = "*y.add(i) = a * *x.add(i) + *y.add(i);"

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness("filters")
local check, wait_for, count_lines = t.check, t.wait_for, t.count_lines

local function run()
  local ks = require("kernelscope")
  local lsp = require("kernelscope.lsp")
  local views = require("kernelscope.views")
  ks.setup({ cmd = { server } })

  local src, src_win, client = t.open_source(saxpy)
  if not client then
    return
  end
  local line = t.line_of(src, SAXPY_LINE)

  local vbuf = ks.open("ptx")
  local view = views.view(vbuf)
  check("the PTX view holds saxpy's PTX", wait_for(function()
    return count_lines(vbuf, "%.entry%s+saxpy") > 0
  end, t.compile_timeout))

  -- The lit lines of the SAXPY line against the server's lineMap with the same filters.
  local function linked_exactly(what)
    vim.api.nvim_set_current_win(src_win)
    vim.api.nvim_win_set_cursor(src_win, { line + 1, 0 })
    vim.api.nvim_exec_autocmds("CursorMoved", { buffer = src })
    local lit = {}
    for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(vbuf, views.ns, 0, -1, {})) do
      lit[mark[2]] = true
    end
    local filters = views.filters()
    local map = lsp.request_sync(client, lsp.methods.line_map, {
      textDocument = lsp.text_document(src), line = line, filters = filters,
    }, 10000, src)
    local want = {}
    for _, r in ipairs((map and map.stages and map.stages.ptx) or {}) do
      for l = r.start, r["end"] do
        want[l] = true
      end
    end
    local missing, extra = {}, {}
    for l in pairs(want) do
      if not lit[l] then
        table.insert(missing, l)
      end
    end
    -- A `.loc` between a line's instructions shares their highlight; it maps to no source.
    for l in pairs(lit) do
      if not want[l] then
        local loc = lsp.request_sync(client, lsp.methods.source_location, { uri = view.uri, line = l, filters = filters }, 10000, src)
        if not (loc and (loc.location == nil or loc.location == vim.NIL)) then
          table.insert(extra, l)
        end
      end
    end
    check(what .. ": the lit PTX lines are lineMap's", next(want) ~= nil and #missing == 0 and #extra == 0,
      "missing " .. table.concat(missing, ",") .. " extra " .. table.concat(extra, ","))
    local back = true
    for l in pairs(want) do
      local loc = lsp.request_sync(client, lsp.methods.source_location, { uri = view.uri, line = l, filters = filters }, 10000, src)
      if not (loc and loc.location and loc.location ~= vim.NIL and loc.location.range.start.line == line) then
        back = false
      end
    end
    check(what .. ": each lit line's sourceLocation is the SAXPY line", back)
  end

  check("with the default filters the PTX has no .loc lines", count_lines(vbuf, "^%s*%.loc%s") == 0)
  linked_exactly("filters on")

  vim.cmd("Kernelscope filter debugLocations")
  local config = require("kernelscope.config")
  check("`:Kernelscope filter debugLocations` turns it off", config.options.filters.debugLocations == false)
  check("the choice is remembered for the next session", config.remembered_filters().debugLocations == false
    and config.set({ cmd = { server } }).filters.debugLocations == false, vim.inspect(config.remembered_filters()))
  check("the PTX view shows the .loc lines again", wait_for(function()
    return count_lines(vbuf, "^%s*%.loc%s") > 0
  end, 10000))
  linked_exactly("debug locations shown")
end

t.run(run)
