-- kernelscope.health: `:checkhealth kernelscope`, the Neovim version, the server binary
-- (where it was found, or what to do),
-- the attached client, and the toolchain as `kernelscope doctor` reports it.
local M = {}

-- Neovim 0.10 has vim.health.start/ok/...; 0.7-0.9 have require("health").report_*.
local report = (function()
  if vim.health and vim.health.start then
    return vim.health
  end
  local h = require("health")
  return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
end)()

function M.check()
  local config = require("kernelscope.config")
  local lsp = require("kernelscope.lsp")

  report.start("kernelscope: Neovim")
  if vim.fn.has("nvim-0.7") == 1 then
    report.ok("Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch))
  else
    report.error("Neovim 0.7 or newer is needed")
  end

  report.start("kernelscope: server")
  local found, tried = require("kernelscope.server").find(config.options.cmd)
  if not found then
    report.error("the kernelscope server was not found; looked at: " .. table.concat(tried, ", "),
      require("kernelscope.server").advice())
    return
  end
  local path = found.path
  report.ok("server: " .. path .. " (" .. found.from .. ")")
  local clients = lsp.clients()
  if #clients > 0 then
    for _, client in ipairs(clients) do
      report.ok(string.format("client %d running for %s", client.id, client.config.root_dir or "?"))
    end
  else
    report.info("no kernelscope client running (open a kernel source to start one)")
  end

  report.start("kernelscope: toolchain (kernelscope doctor)")
  local output = vim.fn.systemlist({ path, "doctor" })
  local failed = vim.v.shell_error ~= 0
  for _, line in ipairs(output) do
    if line ~= "" then
      local lower = line:lower()
      if lower:find("missing") or lower:find("error") or lower:find("not found") or lower:find("fail") then
        report.warn(line)
      elseif line:find("%sok%s") then
        report.ok(line)
      else
        report.info(line)
      end
    end
  end
  if failed then
    report.error("`kernelscope doctor` reported problems (exit status " .. vim.v.shell_error .. ")")
  else
    report.ok("`kernelscope doctor` passed")
  end
end

return M
