-- The tools backed by the editor's own language servers (diagnostics, code_nav, rename_symbol,
-- code_action, editor_state, and the diagnostics at the end of a write), in real Neovim with a
-- real gopls beside agentls:
--
--   AGENTLS_BIN=/path/to/agentls GOPLS_BIN=/path/to/gopls nvim --clean --headless -l tests/languages.lua
--
-- Verified with gopls v0.23.0 under Neovim 0.10.4 (Debian trixie) and 0.12 (Debian sid). Without
-- AGENTLS_BIN or gopls the tests are reported as skipped. Prints one line per test and a summary;
-- exits non-zero when a test failed.

local script = vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
local plugin_root = vim.fs.dirname(vim.fs.dirname(script))
vim.opt.runtimepath:prepend(plugin_root)
vim.o.swapfile = false
vim.o.more = false
vim.o.showmode = false
vim.cmd('runtime plugin/agentls.lua')

local function out(line)
  io.stdout:write(line, '\n')
  io.stdout:flush()
end
local function message(...)
  local parts = {}
  for i = 1, select('#', ...) do
    parts[#parts + 1] = tostring((select(i, ...)))
  end
  out('      (message) ' .. table.concat(parts, ' '):gsub('\n', '\n      (message) '))
end
_G.print = message
vim.notify = function(msg, level)
  message(('[%s] %s'):format(level or vim.log.levels.INFO, tostring(msg)))
end

local counts = { passed = 0, failed = 0, skipped = 0 }
local function test(name, fn)
  local start = vim.uv.hrtime()
  local ok, err = xpcall(fn, debug.traceback)
  local took = ('(%d ms)'):format((vim.uv.hrtime() - start) / 1e6)
  if ok then
    counts.passed = counts.passed + 1
    out(('ok    %s %s'):format(name, took))
  else
    counts.failed = counts.failed + 1
    out(('FAIL  %s %s\n      %s'):format(name, took, (tostring(err):gsub('\n', '\n      '))))
  end
end
local function contains(haystack, needle, what)
  if type(haystack) ~= 'string' or not haystack:find(needle, 1, true) then
    error(('%s: %s does not contain %s'):format(what or 'text', vim.inspect(haystack), vim.inspect(needle)), 2)
  end
end
local function lacks(haystack, needle, what)
  if haystack:find(needle, 1, true) then
    error(('%s: %s contains %s'):format(what or 'text', vim.inspect(haystack), vim.inspect(needle)), 2)
  end
end
local function wait_for(what, cond, timeout_ms)
  if not vim.wait(timeout_ms or 20000, cond, 20) then
    error('timed out waiting for ' .. what, 2)
  end
end

local bin = os.getenv('AGENTLS_BIN')
local gopls = os.getenv('GOPLS_BIN')
if not gopls or gopls == '' then
  gopls = vim.fn.exepath('gopls')
end
if not bin or bin == '' or gopls == '' then
  out('skip  editor language servers (set AGENTLS_BIN and have gopls on PATH or in GOPLS_BIN)')
  out('0 passed, 0 failed, 1 skipped')
  os.exit(0)
end

-- A small Go module of three files.
local ws = vim.fs.normalize(vim.fn.resolve(vim.fn.tempname()))
local files = {
  ['go.mod'] = 'module example.com/m\n\ngo 1.22\n',
  ['a.go'] = 'package m\n\ntype Greeter struct{}\n\nfunc (Greeter) Hello() string { return "hi" }\n',
  ['b.go'] = 'package m\n\nfunc useA() string { var g Greeter; return g.Hello() }\n',
  ['c.go'] = 'package m\n\nfunc useC() string { return Greeter{}.Hello() }\n',
}
vim.fn.mkdir(ws .. '/.git', 'p')
for rel, text in pairs(files) do
  local f = assert(io.open(ws .. '/' .. rel, 'wb'))
  f:write(text)
  f:close()
end
local function disk(rel)
  local f = assert(io.open(ws .. '/' .. rel, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

-- gopls for Go buffers, as a user's configuration starts it; its own caches stay in a temp dir.
local cache = vim.fn.tempname()
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(ev)
    vim.lsp.start({
      name = 'gopls',
      cmd = { gopls },
      cmd_env = { GOPLSCACHE = cache, GOFLAGS = '-mod=mod', GOTOOLCHAIN = 'local' },
      root_dir = ws,
    }, { bufnr = ev.buf })
  end,
})

require('agentls').setup({
  cmd = { bin, 'serve', '--stdio' },
  settings = { diagnostics = { waitMs = 15000 } },
})

local agentls = require('agentls')
local function call(name, args)
  local res, err = agentls.call_sync(name, args, 30000)
  if not res then
    error(('%s failed to run: %s'):format(name, tostring(err)), 2)
  end
  return res
end
local function call_ok(name, args)
  local res = call(name, args)
  if res.isError then
    error(('%s returned an error: %s'):format(name, res.content), 2)
  end
  return res.content
end
local function client(bufnr, name)
  return vim.lsp.get_clients({ bufnr = bufnr, name = name })[1]
end
local function buf_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
end

vim.cmd('edit ' .. ws .. '/b.go')
local b = vim.api.nvim_get_current_buf()
vim.cmd('edit ' .. ws .. '/a.go')
local a = vim.api.nvim_get_current_buf()

test('gopls and agentls both attach; the tools appear', function()
  for _, buf in ipairs({ a, b }) do
    wait_for('gopls and agentls on buffer ' .. buf, function()
      local g, s = client(buf, 'gopls'), client(buf, 'agentls')
      return g and s and g.initialized and s.initialized
    end, 30000)
  end
  local tools = assert(agentls.tools_sync(15000))
  local names = {}
  for _, t in ipairs(tools) do
    names[t.name] = true
  end
  for _, want in ipairs({ 'diagnostics', 'code_nav', 'rename_symbol', 'code_action', 'editor_state' }) do
    assert(names[want], 'tool list lacks ' .. want)
  end
  -- gopls answers once it has loaded the module
  wait_for('gopls to load the module', function()
    local res = call('code_nav', { action = 'references', path = 'a.go', line = 5, symbol = 'Hello' })
    return not res.isError and res.content:find('c.go:3:', 1, true) ~= nil
  end, 60000)
end)

test('code_nav: references of a method across files, definition, hover', function()
  local refs = call_ok('code_nav', { action = 'references', path = 'a.go', line = 5, symbol = 'Hello' })
  contains(refs, 'a.go:5: func (Greeter) Hello() string { return "hi" }')
  contains(refs, 'b.go:3: func useA() string { var g Greeter; return g.Hello() }')
  contains(refs, 'c.go:3: func useC() string { return Greeter{}.Hello() }')
  local def = call_ok('code_nav', { action = 'definition', path = 'c.go', line = 3, symbol = 'Greeter' })
  contains(def, 'a.go:3: type Greeter struct{}')
  local hover = call_ok('code_nav', { action = 'hover', path = 'b.go', line = 3, symbol = 'Hello' })
  contains(hover, 'func (Greeter) Hello() string')
end)

test('diagnostics: an unsaved broken buffer', function()
  vim.api.nvim_buf_set_lines(b, 2, 3, false, { 'func useA() string { var g Greeter; return g.Hell() }' })
  wait_for('gopls to report the broken buffer', function()
    return #vim.diagnostic.get(b, { severity = vim.diagnostic.severity.ERROR }) > 0
  end)
  local d = call_ok('diagnostics', { path = 'b.go' })
  contains(d, 'b.go:3:')
  contains(d, 'error')
  contains(d, 'Hell')
  lacks(disk('b.go'), 'g.Hell()', 'the broken text is only in the buffer')
  vim.api.nvim_buf_set_lines(b, 2, 3, false, { 'func useA() string { var g Greeter; return g.Hello() }' })
  wait_for('the error to go', function()
    return #vim.diagnostic.get(b, { severity = vim.diagnostic.severity.ERROR }) == 0
  end)
  contains(call_ok('diagnostics', {}), 'No errors or warnings reported for the workspace.')
end)

test('edit_file that breaks the build returns gopls\'s error', function()
  call_ok('read_file', { path = 'a.go' })
  local r = call_ok('edit_file', { path = 'a.go', old_string = 'return "hi"', new_string = 'return 1' })
  contains(r, 'the editor reports after the change:')
  contains(r, 'a.go:5:')
  contains(r, 'cannot use 1')
  r = call_ok('edit_file', { path = 'a.go', old_string = 'return 1', new_string = 'return "hi"' })
  contains(r, 'the editor reports no errors or warnings in the changed files')
end)

test('rename_symbol: a type across files, one undo step per open buffer, closed files on disk', function()
  local r = call_ok('rename_symbol', { path = 'a.go', line = 3, symbol = 'Greeter', new_name = 'Welcomer' })
  contains(r, 'a.go: ')
  contains(r, 'b.go: ')
  contains(r, 'c.go: 1 edit (on disk)')
  contains(buf_text(a), 'type Welcomer struct{}')
  contains(buf_text(b), 'var g Welcomer')
  contains(disk('c.go'), 'Welcomer{}.Hello()')
  vim.api.nvim_buf_call(a, function()
    vim.cmd('silent undo')
  end)
  contains(buf_text(a), 'type Greeter struct{}', 'one undo reverts the rename in a.go')
  vim.api.nvim_buf_call(a, function()
    vim.cmd('silent redo')
  end)
  contains(buf_text(a), 'type Welcomer struct{}', 'redo')
end)

test('code_action: a gopls quick fix listed and applied', function()
  -- An unused variable in the open buffer of b.go: gopls's quick fix removes it.
  call_ok('read_file', { path = 'b.go' })
  call_ok('edit_file', { path = 'b.go', old_string = '{ var g', new_string = '{ unused := 1; var g' })
  wait_for('gopls to report the unused variable', function()
    return #vim.diagnostic.get(b, { lnum = 2, severity = vim.diagnostic.severity.ERROR }) > 0
  end)
  local list
  wait_for('a quick fix for the variable', function()
    local res = call('code_action', { path = 'b.go', line = 3, only = 'quickfix' })
    list = res.content
    return not res.isError and list:find('\n1%. ') ~= nil
  end, 30000)
  contains(list, 'Code actions at b.go:3')
  local n, title = list:match('\n(%d+)%. ([^\n]-unused[^\n]*)')
  assert(n, 'no quick fix for the unused variable listed:\n' .. list)
  local r = call_ok('code_action', { path = 'b.go', line = 3, apply = n })
  contains(r, 'Applied')
  wait_for('the variable to go', function()
    return not buf_text(b):find('unused := 1', 1, true)
  end, 15000)
  message('applied: ' .. title)
end)

test('editor_state: the active file, cursor and a visual selection', function()
  vim.api.nvim_buf_set_lines(b, 0, 0, false, { '// unsaved' })
  vim.api.nvim_set_current_buf(a)
  vim.api.nvim_win_set_cursor(0, { 3, 5 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('v7l', true, false, true), 'nx', false)
  local s = call_ok('editor_state', {})
  contains(s, 'Active: a.go, cursor at line 3')
  contains(s, 'Selection: lines 3:6 to 3:14')
  contains(s, 'Welcomer')
  contains(s, '- a.go [go]')
  contains(s, '- b.go [go] (unsaved changes)')
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>', true, false, true), 'nx', false)
end)

for _, c in ipairs(vim.lsp.get_clients()) do
  if vim.fn.has("nvim-0.11") == 1 then c:stop(true) else c.stop(true) end
end
vim.wait(5000, function()
  return #vim.lsp.get_clients() == 0
end, 20)
vim.fn.delete(ws, 'rf')
vim.fn.delete(cache, 'rf')
out(('%d passed, %d failed, %d skipped'):format(counts.passed, counts.failed, counts.skipped))
os.exit(counts.failed > 0 and 1 or 0)
