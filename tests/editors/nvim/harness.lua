-- The plumbing shared by the Neovim end-to-end tests: result lines, checks, and the
-- coroutine that runs a test's steps while yielding to Neovim's main loop between them,
-- so typed keys are processed and autocommands fire as when a user types.
--
--   local t = dofile(HERE .. "/harness.lua")("tag")   -- result lines read `ok - [tag] ...`
--   t.run(function() ... t.check(name, ok, detail) ... t.wait_for(cond, ms) ... end)
-- and the set-up the tests share: t.open_source(path) (edit, wait for the server),
-- t.line_of, t.count_lines, t.has_line, t.compile_timeout ($KS_TIMEOUT_MS).
-- Results go to $KS_RESULTS (headless Neovim writes its own messages to stdout too),
-- ending with `N passed, N failed`; Neovim exits non-zero on any failure.
return function(tag)
  local t = {}
  local results = assert(io.open(assert(os.getenv("KS_RESULTS"), "KS_RESULTS is not set"), "a"))
  local prefix = tag and ("[" .. tag .. "] ") or ""
  local passed, failed = 0, 0
  local co

  function t.out(s)
    results:write(s .. "\n")
    results:flush()
  end

  function t.check(name, ok, detail)
    if ok then
      passed = passed + 1
      t.out("ok - " .. prefix .. name)
    else
      failed = failed + 1
      t.out("not ok - " .. prefix .. name .. (detail and (": " .. tostring(detail)) or ""))
    end
    return ok
  end

  --- Yields to the main loop for `ms`.
  function t.sleep(ms)
    vim.defer_fn(function()
      local ok, err = coroutine.resume(co)
      if not ok then
        t.out("not ok - " .. prefix .. "test script error: " .. tostring(err))
        vim.cmd("cquit! 2")
      end
    end, ms)
    coroutine.yield()
  end

  local uv = vim.uv or vim.loop
  --- Yields until `cond()` returns a true value (returned), or nil after `timeout_ms`.
  function t.wait_for(cond, timeout_ms)
    local deadline = uv.now() + (timeout_ms or 10000)
    while uv.now() < deadline do
      local ok, value = pcall(cond)
      if ok and value then
        return value
      end
      t.sleep(50)
    end
    return nil
  end

  -- What the tests set up alike ----------------------------------------------------------

  t.compile_timeout = tonumber(os.getenv("KS_TIMEOUT_MS") or "") or 240000

  --- Edits `path` and waits until the kernelscope server is attached and initialized;
  --- checks that it did. Returns the buffer, its window and the client (nil when not).
  function t.open_source(path)
    vim.cmd("edit " .. vim.fn.fnameescape(path))
    local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
    local lsp = require("kernelscope.lsp")
    local client = t.wait_for(function()
      local c = lsp.client(buf)
      return c and c.initialized and c
    end, 20000)
    t.check("the server attaches to " .. vim.fn.fnamemodify(path, ":t"), client ~= nil)
    return buf, win, client
  end

  --- The 0-based number of the first line of `buf` containing `text` (plain), or nil.
  function t.line_of(buf, text)
    for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if l:find(text, 1, true) then
        return i - 1
      end
    end
  end

  --- How many lines of `buf` match the Lua pattern.
  function t.count_lines(buf, pattern)
    local n = 0
    for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if l:find(pattern) then
        n = n + 1
      end
    end
    return n
  end

  --- Whether a line of `buf` matches the Lua pattern.
  function t.has_line(buf, pattern)
    return t.count_lines(buf, pattern) > 0
  end

  --- Runs `steps` in the coroutine, then writes the summary, stops the servers and exits.
  function t.run(steps)
    co = coroutine.create(function()
      local ok, err = pcall(steps)
      if not ok then
        t.check("test script ran to the end", false, err)
      end
      t.out(string.format("%d passed, %d failed", passed, failed))
      for _, c in ipairs(vim.lsp.get_active_clients()) do
        c.stop(true)
      end
      vim.cmd(failed == 0 and "qall!" or "cquit! 1")
    end)
    vim.schedule(function()
      coroutine.resume(co)
    end)
  end

  return t
end
