-- kernelscope.crate: which Rust buffers belong to a kernel crate, the plugin's default
-- for attaching the server.
--
-- The server compiles a crate as a whole: a module without a kernel (`blend.rs`) and a file
-- of a path dependency get hovers, hints and live compiles through the kernel crate that
-- uses them. So a buffer is attached when its own text declares a kernel, when another
-- file of its crate does, or when its crate is a path dependency of a kernel crate met
-- before or found beside it. Crates are scanned once per Neovim session.
local M = {}

local uv = vim.uv or vim.loop

-- Files scanned per crate at most: a huge crate is attached if a kernel shows up early.
local MAX_FILES = 400
-- Lines read per file.
local MAX_LINES = 400

--- True when `lines` declare a GPU kernel or target nvptx.
local function has_kernel_marker(lines)
  for _, line in ipairs(lines) do
    if line:find('"ptx%-kernel"') or line:find('"gpu%-kernel"') or line:find("nvptx") or line:find("#%[kernel%]") then
      return true
    end
  end
  return false
end

--- True when buffer `bufnr` declares a kernel itself (its unsaved text).
function M.buffer_has_kernel(bufnr)
  return has_kernel_marker(vim.api.nvim_buf_get_lines(bufnr, 0, MAX_LINES, false))
end

local function read_lines(path, max)
  local ok, lines = pcall(vim.fn.readfile, path, "", max)
  return ok and lines or {}
end

--- The crate directory of a file: the nearest directory upwards with a Cargo.toml.
function M.crate_dir(path)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  while dir and dir ~= "" do
    if uv.fs_stat(dir .. "/Cargo.toml") then
      return dir
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

-- crate dir -> true/false: whether a file of the crate declares a kernel.
local kernel_crates = {}

--- True when a `.rs` file of the crate in `dir` declares a kernel (target/ and hidden
--- directories skipped).
function M.crate_has_kernel(dir)
  if kernel_crates[dir] ~= nil then
    return kernel_crates[dir]
  end
  local found, seen = false, 0
  local function walk(d)
    local handle = uv.fs_scandir(d)
    while handle and not found and seen < MAX_FILES do
      local name, kind = uv.fs_scandir_next(handle)
      if not name then
        break
      end
      local path = d .. "/" .. name
      if kind == "directory" and name ~= "target" and not name:find("^%.") then
        walk(path)
      elseif name:find("%.rs$") then
        seen = seen + 1
        found = has_kernel_marker(read_lines(path, MAX_LINES))
      end
    end
  end
  walk(dir)
  kernel_crates[dir] = found
  return found
end

--- The directories of the path dependencies in the Cargo.toml of crate `dir`.
function M.path_dependencies(dir)
  local deps = {}
  for _, line in ipairs(read_lines(dir .. "/Cargo.toml", 2000)) do
    local rel = line:match('path%s*=%s*"([^"]+)"')
    if rel and not line:match("^%s*#") then
      local full = rel:sub(1, 1) == "/" and rel or (dir .. "/" .. rel)
      local resolved = uv.fs_realpath(full)
      if resolved and uv.fs_stat(resolved .. "/Cargo.toml") then
        table.insert(deps, resolved)
      end
    end
  end
  return deps
end

--- Scans the crates beside `dir` (siblings holding a Cargo.toml, as `../crate-util` is to
--- `crate`), so a dependency opened first still finds the kernel crate that uses it.
local function scan_siblings(dir)
  local parent = vim.fn.fnamemodify(dir, ":h")
  local handle = uv.fs_scandir(parent)
  local count = 0
  while handle and count < 50 do
    local name, kind = uv.fs_scandir_next(handle)
    if not name then
      break
    end
    local sibling = parent .. "/" .. name
    if kind == "directory" and sibling ~= dir and uv.fs_stat(sibling .. "/Cargo.toml") then
      count = count + 1
      M.crate_has_kernel(sibling)
    end
  end
end

--- True when the crate in `dir` is a path dependency of a kernel crate met so far or
--- beside it.
local function is_dependency_of_kernel_crate(dir)
  local real = uv.fs_realpath(dir) or dir
  scan_siblings(dir)
  for crate, has in pairs(kernel_crates) do
    if has and crate ~= dir then
      for _, dep in ipairs(M.path_dependencies(crate)) do
        if dep == real then
          return true
        end
      end
    end
  end
  return false
end

--- The default `attach` option: true for every Rust file of a kernel crate.
function M.wants(bufnr)
  if M.buffer_has_kernel(bufnr) then
    local dir = M.crate_dir(vim.api.nvim_buf_get_name(bufnr))
    if dir then
      kernel_crates[dir] = true
    end
    return true
  end
  local dir = M.crate_dir(vim.api.nvim_buf_get_name(bufnr))
  if not dir then
    return false
  end
  return M.crate_has_kernel(dir) or is_dependency_of_kernel_crate(dir)
end

return M
