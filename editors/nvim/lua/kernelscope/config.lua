-- kernelscope.config: the plugin's options, their defaults, and the merge with what the
-- user passes to setup{}.
--
-- Everything the server itself decides (arch, opt level, stages, debounce) travels to it
-- untouched as initializationOptions; the plugin only reads the options that shape the
-- editor side (how the server is started, which buffers it attaches to, how views open).
local M = {}

M.defaults = {
  -- The server command, e.g. { "/path/to/kernelscope", "lsp" }. Empty: found as
  -- kernelscope.server says (shipped with the plugin, built in its checkout, PATH).
  cmd = nil,
  -- Extra environment for the server process.
  cmd_env = nil,
  -- Filetypes whose buffers may be attached.
  filetypes = { "rust" },
  -- Files that mark a project root, searched upwards from the buffer; the buffer's own
  -- directory when none is found.
  root_markers = { "kernelscope.toml", "Cargo.toml", ".git" },
  -- Decides whether a buffer of one of `filetypes` is attached. The default attaches every
  -- Rust file of a kernel crate: a file that declares a GPU kernel, a module of a crate
  -- that has one, and a path dependency of such a crate (see kernelscope.crate); set it
  -- to `function() return true end` to attach to every Rust buffer.
  attach = nil,
  -- Sent to the server as initializationOptions (for example arch = "sm_90",
  -- optLevel = 3, stages = { "mir", "llvm-ir", "ptx", "sass" }); see the server's
  -- docs/lsp-extensions.md for the full list. `workspaceTrusted = true` trusts the
  -- workspace: its kernelscope.toml and Cargo.toml may then name a rustc, rustc flags that
  -- load code or write files, and a profile that runs cargo (README: Workspace trust).
  settings = {},
  -- Running and profiling kernels (`:Kernelscope run`, `:Kernelscope profile`, the Run and
  -- Profile lenses). `runner`: a command prefix that reaches a machine with a GPU, like
  -- Cargo's target.runner (`"ssh gpu-box"`; the server's gpuRunner setting); empty: this
  -- machine. `ncu`: Nsight Compute's CLI there; empty: found there.
  gpu = { runner = "", ncu = "" },
  -- Per-line instruction counts at the end of source lines (`4 ptx · 6 sass`).
  inlay_hints = true,
  -- Per-kernel resource lines (`sm_90 · 32 regs · 0 B spill`) with links to each stage.
  codelens = true,
  -- After each save (or settings change) that compiled, a message with what the code
  -- became against the compile before: `saxpy.rs: PTX +1 −1, SASS +2, regs 10→12`.
  notify_changes = true,
  -- How a stage view opens: "vsplit", "split", "tab" or "current".
  split = "vsplit",
  -- What the stage views leave out, as Compiler Explorer's filters (the server filters and
  -- maps lines of the filtered text; docs/lsp-extensions.md, Filters). Toggle one with
  -- `:Kernelscope filter NAME`.
  filters = {
    directives = true,
    debugLocations = true,
    unusedLabels = true,
    comments = true,
    libraryFunctions = true,
    padding = true,
    compactSass = true,
  },
  -- The stages `:Kernelscope stages` tiles beside the source, left to right.
  tile_stages = { "ptx", "sass" },
  -- Buffer-local keys in attached source buffers; set one to false to leave it unmapped.
  -- Stage views always map `q` (close) and the hover key.
  keys = {
    hover = "K",
  },
  -- Highlight groups used for linked highlighting (defined with `default` links, so a
  -- colour scheme may override them).
  highlight = {
    source = "KernelscopeSource",
    artifact = "KernelscopeArtifact",
    -- Lines inlined through a call on the source line: a line highlight and a `▎` in the
    -- sign column.
    inlined = "KernelscopeInlined",
    inlined_bar = "KernelscopeInlinedBar",
  },
  -- Move the cursor of a stage view so the lines that belong to the source cursor line
  -- are visible.
  follow_cursor = true,
}

M.options = vim.deepcopy(M.defaults)

function M.set(user)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), user or {})
  -- Lists are replaced, never merged element by element.
  for _, key in ipairs({ "cmd", "filetypes", "root_markers", "tile_stages" }) do
    if user and user[key] then
      M.options[key] = user[key]
    end
  end
  if type(M.options.cmd) == "string" then
    M.options.cmd = { M.options.cmd }
  end
  -- What `:Kernelscope filter` last chose wins over the defaults and setup{}'s filters.
  M.options.filters = vim.tbl_extend("force", M.options.filters, M.remembered_filters())
  return M.options
end

--- Where `:Kernelscope filter` keeps its choices between sessions.
function M.filters_file()
  -- Neovim 0.7 has no "state" directory: "data" there.
  local ok, dir = pcall(vim.fn.stdpath, "state")
  return (ok and dir or vim.fn.stdpath("data")) .. "/kernelscope/filters.json"
end

--- The filters `:Kernelscope filter` set in an earlier session ({} when none).
function M.remembered_filters()
  local ok, lines = pcall(vim.fn.readfile, M.filters_file())
  if not ok or #lines == 0 then
    return {}
  end
  local decoded_ok, decoded = pcall(vim.fn.json_decode, table.concat(lines, "\n"))
  if not decoded_ok or type(decoded) ~= "table" then
    return {}
  end
  local filters = {}
  for name, on in pairs(decoded) do
    if type(on) == "boolean" then
      filters[name] = on
    end
  end
  return filters
end

--- Sets a filter and keeps it for later sessions.
function M.remember_filter(name, on)
  M.options.filters[name] = on
  local remembered = M.remembered_filters()
  remembered[name] = on
  vim.fn.mkdir(vim.fn.fnamemodify(M.filters_file(), ":h"), "p")
  pcall(vim.fn.writefile, { vim.fn.json_encode(remembered) }, M.filters_file())
end

return M
