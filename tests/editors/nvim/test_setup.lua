-- End-to-end test of the plugin's set-up from a clean config: a plugin install line and
-- one `require('kernelscope').setup{}` with no options.
--
-- Runs in `nvim --headless --clean` (see run.sh), once per case in KS_CASE:
--   path      the plugin is a copy outside any checkout and `kernelscope` is on PATH: the
--             server is found there, attaches to a module of a kernel crate that declares
--             no kernel (examples/crate/src/math.rs), compiles it, answers a hover, and
--             `:checkhealth kernelscope` says where the server was found;
--   missing   no server anywhere: `:checkhealth kernelscope` says what to do and opening a
--             kernel tells the user once, without an error trace;
--   checkout  the plugin inside the repository whose build/ holds the server: found there.
-- Environment: KS_CASE, KS_CRATE (a copy of examples/crate, beside a copy of
-- examples/crate-util), KS_RESULTS, KS_TIMEOUT_MS, KERNELSCOPE_BIN (for `checkout`).
local case = assert(os.getenv("KS_CASE"), "KS_CASE is not set")
local crate_dir = os.getenv("KS_CRATE")
local compile_timeout = tonumber(os.getenv("KS_TIMEOUT_MS") or "") or 240000

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local t = harness(case)
local check, sleep, wait_for = t.check, t.sleep, t.wait_for

local notified = {}
vim.notify = function(msg, level)
  table.insert(notified, { msg = tostring(msg), level = level })
end

--- The text `:checkhealth kernelscope` shows.
local function checkhealth()
  vim.cmd("checkhealth kernelscope")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  vim.cmd("bwipeout!")
  return text
end

local function case_path()
  local ks = require("kernelscope")
  local lsp = require("kernelscope.lsp")
  ks.setup({})
  local on_path = vim.fn.exepath("kernelscope")

  vim.cmd("edit " .. vim.fn.fnameescape(crate_dir .. "/src/math.rs"))
  local src = vim.api.nvim_get_current_buf()
  local client = wait_for(function()
    local c = lsp.client(src)
    return c and c.initialized and c
  end, 20000)
  check("setup{} finds kernelscope on PATH and attaches to a crate module without kernels", client ~= nil)
  if not client then
    return
  end
  check("the client runs the server found on PATH", client.config.cmd[1] == on_path, vim.inspect(client.config.cmd))

  -- The line `let scaled = a * x;` of axpb, inlined into the crate's kernels.
  local line
  for i, l in ipairs(vim.api.nvim_buf_get_lines(src, 0, -1, false)) do
    if l:find("let scaled = a * x;", 1, true) then
      line = i - 1
    end
  end
  local hover = wait_for(function()
    local reply = lsp.request_sync(client, "textDocument/hover", {
      textDocument = lsp.text_document(src),
      position = { line = line, character = 8 },
    }, 5000, src)
    local text = reply and reply.contents and vim.inspect(reply.contents) or ""
    return text:find("mul%.") and text
  end, compile_timeout)
  check("a hover on the module's multiply lists the PTX it became", hover ~= nil)

  local health = checkhealth()
  check("checkhealth names the server found on PATH", health:find(on_path .. " (PATH)", 1, true) ~= nil, health)
  check("checkhealth runs kernelscope doctor", health:find("kernelscope doctor", 1, true) ~= nil, health)

  -- A file of the path dependency (crate-util) attaches too.
  vim.cmd("edit " .. vim.fn.fnameescape(vim.fn.fnamemodify(crate_dir, ":h") .. "/crate-util/src/lib.rs"))
  local dep = vim.api.nvim_get_current_buf()
  check("a file of the kernel crate's path dependency is attached", wait_for(function()
    return lsp.client(dep) ~= nil
  end, 10000) ~= nil)

  -- A plain Rust file outside any kernel crate is not.
  local plain = vim.fn.tempname() .. "/plain/src/main.rs"
  vim.fn.mkdir(vim.fn.fnamemodify(plain, ":h"), "p")
  vim.fn.writefile({ "[package]", 'name = "plain"' }, vim.fn.fnamemodify(plain, ":h:h") .. "/Cargo.toml")
  vim.fn.writefile({ "fn main() {}" }, plain)
  vim.cmd("edit " .. vim.fn.fnameescape(plain))
  local other = vim.api.nvim_get_current_buf()
  sleep(300)
  check("a Rust file of a crate without kernels is left alone", lsp.client(other) == nil)
end

local function case_missing()
  require("kernelscope").setup({})
  local health = checkhealth()
  check("checkhealth says the server was not found and where it looked", health:find("not found", 1, true) ~= nil
    and health:find("kernelscope on PATH", 1, true) ~= nil, health)
  check("checkhealth says how to get one", health:find("ninja -C build kernelscope", 1, true) ~= nil, health)
  vim.cmd("edit " .. vim.fn.fnameescape(crate_dir .. "/src/lib.rs"))
  vim.cmd("edit " .. vim.fn.fnameescape(crate_dir .. "/src/math.rs"))
  local told = {}
  for _, n in ipairs(notified) do
    if n.msg:find("server was not found", 1, true) then
      table.insert(told, n)
    end
  end
  check("opening kernels tells once that the server was not found", #told == 1, vim.inspect(notified))
end

local function case_checkout()
  require("kernelscope").setup({})
  local health = checkhealth()
  local want = assert(os.getenv("KERNELSCOPE_BIN"))
  check("checkhealth finds the server built in the plugin's checkout",
    health:find(want .. " (built in the plugin's checkout)", 1, true) ~= nil, health)
end

t.run(({ path = case_path, missing = case_missing, checkout = case_checkout })[case])
