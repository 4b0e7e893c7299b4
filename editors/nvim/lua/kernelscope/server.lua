-- kernelscope.server: where the `kernelscope` binary is, found the way the VS Code
-- extension finds it, so that a plugin install line and `setup{}` are enough.
--
-- In order: the `cmd` given to setup{}; a server shipped inside the plugin directory
-- (`bin/kernelscope`); the one built in the checkout the plugin lives in
-- (`build/server/kernelscope`, what the README's cmake line writes); `kernelscope` on PATH.
-- `:checkhealth kernelscope` prints the same list with what to do when nothing is found.
local M = {}

--- The plugin's directory (editors/nvim in a checkout): this file is lua/kernelscope/server.lua.
function M.plugin_dir()
  local file = debug.getinfo(1, "S").source:gsub("^@", "")
  return vim.fn.fnamemodify(file, ":p:h:h:h")
end

local function executable(path)
  return path ~= nil and path ~= "" and vim.fn.executable(path) == 1 and vim.fn.isdirectory(path) == 0
end

--- The places looked at, in order, each `{ path = ..., from = ... }`.
function M.candidates()
  local plugin = M.plugin_dir()
  local checkout = vim.fn.fnamemodify(plugin, ":h:h")
  return {
    { path = plugin .. "/bin/kernelscope", from = "shipped with the plugin" },
    { path = checkout .. "/build/server/kernelscope", from = "built in the plugin's checkout" },
  }
end

--- Finds the server. `cmd` is setup{}'s option (a list, a string or nil). Returns
--- `{ cmd = list, path = string, from = string }` when found, or `nil, tried` where
--- `tried` lists what was looked at.
function M.find(cmd)
  if type(cmd) == "string" then
    cmd = { cmd }
  end
  local tried = {}
  if cmd and cmd[1] then
    local path = vim.fn.exepath(vim.fn.expand(cmd[1]))
    if path ~= "" then
      local found = vim.deepcopy(cmd)
      found[1] = path
      return { cmd = found, path = path, from = "the `cmd` option" }
    end
    table.insert(tried, cmd[1] .. " (the `cmd` option)")
    return nil, tried
  end
  for _, c in ipairs(M.candidates()) do
    if executable(c.path) then
      return { cmd = { c.path, "lsp" }, path = c.path, from = c.from }
    end
    table.insert(tried, c.path .. " (" .. c.from .. ")")
  end
  local on_path = vim.fn.exepath("kernelscope")
  if on_path ~= "" then
    return { cmd = { on_path, "lsp" }, path = on_path, from = "PATH" }
  end
  table.insert(tried, "kernelscope on PATH")
  return nil, tried
end

--- What to tell a user whose server was not found.
function M.advice()
  return {
    "Build it in the checkout the plugin is in: cmake -S . -B build -G Ninja && ninja -C build kernelscope",
    "or put `kernelscope` on PATH",
    "or pass its path: require('kernelscope').setup{ cmd = { '/path/to/kernelscope', 'lsp' } }",
  }
end

return M
