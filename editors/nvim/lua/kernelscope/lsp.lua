-- kernelscope.lsp: the kernelscope LSP extensions as seen from Neovim, and the few
-- functions that paper over the differences between Neovim 0.7 and 0.10+.
--
-- This file names the methods of docs/lsp-extensions.md that the plugin uses and the stage
-- names; tests/server/lsp/MirrorTests.cpp checks both against the server's table. Nothing here
-- interprets compiler output; the server does that.
local M = {}

M.name = "kernelscope"

-- Methods of the kernelscope extension.
M.methods = {
  artifact = "kernelscope/artifact",
  line_map = "kernelscope/lineMap",
  source_location = "kernelscope/sourceLocation",
  kernels = "kernelscope/kernels",
  line_costs = "kernelscope/lineCosts",
  value_flow = "kernelscope/valueFlow",
  diff = "kernelscope/diff",
  status = "kernelscope/status",
}

-- The filters of kernelscope/artifact (and lineMap, sourceLocation), in the order listed.
M.filters = { "directives", "debugLocations", "unusedLabels", "comments", "libraryFunctions", "padding", "compactSass" }

-- Stage names as the server spells them, keyed by the name the user types.
M.stages = {
  mir = "mir",
  llvm = "llvm-ir",
  ["llvm-ir"] = "llvm-ir",
  ptx = "ptx",
  sass = "sass",
}

-- The view filetype for each stage, one syntax file each under syntax/.
M.filetypes = {
  mir = "kernelscope_mir",
  ["llvm-ir"] = "kernelscope_llvm",
  ["llvm-ir-unoptimized"] = "kernelscope_llvm",
  ptx = "kernelscope_ptx",
  ["cuda-ptx"] = "kernelscope_ptx",
  sass = "kernelscope_sass",
}

local has_011 = vim.fn.has("nvim-0.11") == 1

--- The kernelscope clients attached to `bufnr` (every kernelscope client when nil).
function M.clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
  end
  local found = {}
  local all = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
  for _, client in pairs(all) do
    if client.name == M.name then
      table.insert(found, client)
    end
  end
  return found
end

function M.client(bufnr)
  return M.clients(bufnr)[1]
end

--- Sends a request; `handler(err, result)` runs on the main loop.
function M.request(client, method, params, handler, bufnr)
  local function on_reply(err, result)
    handler(err, result)
  end
  if has_011 then
    return client:request(method, params, on_reply, bufnr)
  end
  return client.request(method, params, on_reply, bufnr)
end

--- Sends a notification to the server.
function M.notify_server(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

--- True when the server announced `command` for workspace/executeCommand.
function M.has_command(client, command)
  local provider = (client.server_capabilities or {}).executeCommandProvider
  return provider ~= nil and vim.tbl_contains(provider.commands or {}, command)
end

--- The architectures the server knows (initialize's capabilities.experimental.kernelscope.archs),
--- by name; empty when no server is attached.
function M.archs(bufnr)
  local client = M.client(bufnr or 0)
  local caps = client and (client.server_capabilities or {}).experimental or {}
  local names = {}
  for _, a in ipairs(((caps or {}).kernelscope or {}).archs or {}) do
    table.insert(names, a.name)
  end
  return names
end

--- Sends a request and waits for it (for commands whose result is shown at once).
function M.request_sync(client, method, params, timeout_ms, bufnr)
  local reply
  if has_011 then
    reply = client:request_sync(method, params, timeout_ms or 5000, bufnr)
  else
    reply = client.request_sync(method, params, timeout_ms or 5000, bufnr)
  end
  if not reply then
    return nil, { message = "no reply from kernelscope within the time limit" }
  end
  return reply.result, reply.err
end

function M.text_document(bufnr)
  return { uri = vim.uri_from_bufnr(bufnr) }
end

--- A readable message for an LSP error (or a plain string).
function M.error_message(err)
  if type(err) == "table" then
    return err.message or vim.inspect(err)
  end
  return tostring(err)
end

function M.notify(msg, level)
  vim.notify("kernelscope: " .. msg, level or vim.log.levels.INFO)
end

return M
