-- Headless tests of the Neovim plugin, in real Neovim:
--
--   AGENTLS_BIN=/path/to/agentls nvim --clean --headless -l tests/run.lua
--
-- The unit tests need no server. The end-to-end tests start AGENTLS_BIN (`agentls serve --stdio`)
-- on temporary workspaces and drive it the way a user and an agent plugin do; without AGENTLS_BIN
-- they are reported as skipped. Prints one line per test and "N passed, N failed, N skipped";
-- exits non-zero when a test failed.

local script = vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
local plugin_root = vim.fs.dirname(vim.fs.dirname(script))
vim.opt.runtimepath:prepend(plugin_root)
package.path = plugin_root .. '/tests/?.lua;' .. package.path
vim.o.swapfile = false
vim.o.more = false
vim.cmd('runtime plugin/agentls.lua')

local has_011 = vim.fn.has('nvim-0.11') == 1

-- Messages Neovim prints (print, vim.notify: "Workspace edit ...", "Client agentls quit ...") go
-- on lines of their own, so that they do not run into the test report: headless Neovim
-- writes them to stderr without a line end.
local function message(...)
  local parts = {}
  for i = 1, select('#', ...) do
    parts[#parts + 1] = tostring((select(i, ...)))
  end
  io.stdout:write('      (message) ', (table.concat(parts, ' '):gsub('\n', '\n      (message) ')), '\n')
end
_G.print = message
vim.notify = function(msg, level)
  message(('[%s] %s'):format(level or vim.log.levels.INFO, tostring(msg)))
end
local counts = { passed = 0, failed = 0, skipped = 0 }
local only = os.getenv('AGENTLS_TEST') -- run only tests whose name contains this

local function out(line)
  io.stdout:write(line, '\n')
  io.stdout:flush()
end

local function test(name, fn, on_error)
  if only and not name:find(only, 1, true) then
    return
  end
  local start = vim.uv.hrtime()
  local ok, err = xpcall(fn, debug.traceback)
  local took = ('(%d ms)'):format((vim.uv.hrtime() - start) / 1e6)
  if ok then
    counts.passed = counts.passed + 1
    out(('ok    %s %s'):format(name, took))
  else
    counts.failed = counts.failed + 1
    out(('FAIL  %s %s\n      %s'):format(name, took, (tostring(err):gsub('\n', '\n      '))))
    if on_error then
      on_error(tostring(err))
    end
  end
end

local function skip(name, why)
  if only and not name:find(only, 1, true) then
    return
  end
  counts.skipped = counts.skipped + 1
  out(('skip  %s (%s)'):format(name, why))
end

local function eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(('%s:\n  want %s\n  got  %s'):format(what or 'values differ', vim.inspect(want), vim.inspect(got)), 2)
  end
end

local function truthy(v, what)
  if not v then
    error(what or 'expected a true value', 2)
  end
  return v
end

local function contains(haystack, needle, what)
  if type(haystack) ~= 'string' or not haystack:find(needle, 1, true) then
    error(('%s: %q not found in:\n%s'):format(what or 'text', needle, tostring(haystack)), 2)
  end
end

--- Waits (processing events) until cond() is true; fails after timeout_ms.
local function wait_for(what, cond, timeout_ms)
  if not vim.wait(timeout_ms or 10000, cond, 10) then
    error('timed out waiting for ' .. what, 2)
  end
end

local tmp_dirs = {}

--- A temporary workspace: files maps relative paths to contents; a .git directory marks the root.
local function workspace(files)
  local dir = vim.fs.normalize(vim.fn.resolve(vim.fn.tempname()))
  tmp_dirs[#tmp_dirs + 1] = dir
  vim.fn.mkdir(dir .. '/.git', 'p')
  for rel, content in pairs(files or {}) do
    local path = dir .. '/' .. rel
    vim.fn.mkdir(vim.fs.dirname(path), 'p')
    local f = assert(io.open(path, 'wb'))
    f:write(content)
    f:close()
  end
  return dir
end

local function read(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function buf_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
end

local function find_buf(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then
      return b
    end
  end
end

-- A tool list as agentls.listTools returns it (decoded), for the tests that need no server.
local fixture_tools = {
  {
    name = 'edit_file',
    description = 'Replace a unique old_string in a file.\nRead the file first.',
    readOnly = false,
    inputSchema = {
      type = 'object',
      properties = {
        path = { type = 'string', description = 'file path' },
        old_string = { type = 'string' },
        new_string = { type = 'string' },
        replace_all = { type = 'boolean', default = false },
      },
      required = { 'new_string', 'old_string', 'path' },
    },
  },
  {
    name = 'grep',
    description = 'Search files.',
    readOnly = true,
    inputSchema = {
      type = 'object',
      properties = {
        pattern = { type = 'string' },
        output_mode = { type = 'string', enum = { 'content', 'files_with_matches', 'count' } },
        max_results = { type = { 'integer', 'null' } },
      },
      required = { 'pattern' },
    },
  },
  {
    name = 'multi_edit',
    description = 'Several edits.',
    readOnly = false,
    inputSchema = {
      type = 'object',
      properties = {
        path = { type = 'string' },
        edits = {
          type = 'array',
          items = {
            type = 'object',
            properties = { old_string = { type = 'string' }, new_string = { type = 'string' } },
            required = { 'new_string', 'old_string' },
          },
        },
      },
      required = { 'edits', 'path' },
    },
  },
  {
    name = 'status',
    description = 'No arguments.',
    readOnly = true,
    inputSchema = { type = 'object', properties = vim.empty_dict() },
  },
}

-- Replaces require('agentls').call / call_sync for a test, recording what the adapters send.
local function with_fake_calls(result, fn)
  local agentls = require('agentls')
  local real_call, real_sync = agentls.call, agentls.call_sync
  local calls = {}
  agentls.call = function(name, args, cb)
    calls[#calls + 1] = { name = name, args = args }
    vim.schedule(function()
      cb(result)
    end)
    return { cancel = function() end }
  end
  agentls.call_sync = function(name, args)
    calls[#calls + 1] = { name = name, args = args, sync = true }
    return result
  end
  local ok, err = pcall(fn, calls)
  agentls.call, agentls.call_sync = real_call, real_sync
  if not ok then
    error(err, 0)
  end
end

out(('Neovim %s, plugin %s'):format(tostring(vim.version()), plugin_root))

------------------------------------------------------------------------------------------------
-- Unit tests: no server
------------------------------------------------------------------------------------------------

test('json: sorted keys, objects vs arrays, plain slashes and escapes', function()
  local json = require('agentls.json')
  eq('{"a":[],"b":{},"c":[1,2.5,"x/y"]}', json.encode({ c = { 1, 2.5, 'x/y' }, b = vim.empty_dict(), a = {} }))
  eq('"tab\\tquote\\"nl\\nback\\\\ctl\\u0001"', json.encode('tab\tquote"nl\nback\\ctl\1'))
  eq('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}', json.pretty({ b = { true, vim.NIL }, a = 1 }))
  -- what we print is JSON that decodes back to the same value
  local v = { z = { 'é', '/', 'a\\/b' }, n = -3, o = vim.empty_dict() }
  eq(v, vim.json.decode(json.encode(v)))
end)

test('schema: input prefill has every required argument, typed', function()
  local schema = require('agentls.schema')
  eq('{"new_string":"","old_string":"","path":""}', schema.prefill(fixture_tools[1].inputSchema))
  eq('{"pattern":""}', schema.prefill(fixture_tools[2].inputSchema))
  eq('{"edits":[],"path":""}', schema.prefill(fixture_tools[3].inputSchema))
  eq('{}', schema.prefill(fixture_tools[4].inputSchema))
  eq(
    '{"a":7,"b":"x","c":false,"d":0,"e":{"f":""}}',
    schema.prefill({
      type = 'object',
      properties = {
        a = { type = 'integer', default = 7 },
        b = { type = 'string', enum = { 'x', 'y' } },
        c = { type = 'boolean' },
        d = { type = { 'number', 'null' } },
        e = { type = 'object', properties = { f = { type = 'string' } }, required = { 'f' } },
      },
      required = { 'a', 'b', 'c', 'd', 'e' },
    })
  )
  eq('{}', schema.prefill(nil))
end)

test('schema: argument signature lists required then optional arguments', function()
  local schema = require('agentls.schema')
  eq('new_string, old_string, path, replace_all?', schema.signature(fixture_tools[1].inputSchema))
  eq('pattern, max_results?, output_mode?', schema.signature(fixture_tools[2].inputSchema))
  eq('', schema.signature(fixture_tools[4].inputSchema))
end)

test('codecompanion adapter: config() gives agentls_ tools with function callbacks and a group', function()
  local cc = require('agentls.adapters.codecompanion')
  local cfg = cc.config({ tools = fixture_tools })
  local names = vim.tbl_filter(function(k)
    return k ~= 'groups'
  end, vim.tbl_keys(cfg))
  table.sort(names)
  eq({ 'agentls_edit_file', 'agentls_grep', 'agentls_multi_edit', 'agentls_status' }, names)
  eq(names, cfg.groups.agentls.tools, 'the agentls group holds them all')
  for _, name in ipairs(names) do
    local entry = cfg[name]
    truthy(type(entry.description) == 'string' and not entry.description:find('\n'), name .. ': one-line description')
    eq('function', type(entry.callback), name .. ': callback is a function (codecompanion 19 resolves only those)')
    eq(nil, entry.path, name .. ': no path')
    local tool = entry.callback()
    eq(name, tool.name, 'tool name')
    eq('function', tool.schema.type, name .. ': schema.type')
    eq(name, tool.schema['function'].name, name .. ': function.name')
    eq('object', tool.schema['function'].parameters.type, name .. ': parameters.type')
    eq(1, #tool.cmds, name .. ': one command')
    for _, k in ipairs({ 'success', 'error', 'prompt', 'rejected', 'cancelled' }) do
      eq('function', type(tool.output[k]), name .. ': output.' .. k)
    end
    local wire = vim.json.decode(vim.json.encode(tool.schema))
    eq('object', wire['function'].parameters.type, name .. ': encoded parameters')
  end
  contains(vim.json.encode(cfg.agentls_status.callback().schema), '"properties":{}', 'empty properties stay an object')
  -- approval: writes ask by default, reads do not; per tool either way; 'none' and 'all'
  eq(true, cfg.agentls_edit_file.opts.require_approval_before, 'writes ask')
  eq(false, cfg.agentls_grep.opts.require_approval_before, 'reads do not')
  local per = cc.tools({ tools = fixture_tools, approval = { edit_file = false, grep = true } })
  eq(false, per.agentls_edit_file.opts.require_approval_before, 'opted out per tool')
  eq(true, per.agentls_grep.opts.require_approval_before, 'opted in per tool')
  local none = cc.tools({ tools = fixture_tools, require_approval = 'none' })
  eq(false, none.agentls_multi_edit.opts.require_approval_before)
  eq(true, cc.tools({ tools = fixture_tools, require_approval = 'all' }).agentls_status.opts.require_approval_before)
  eq({ 'agentls_grep' }, vim.tbl_keys(cc.tools({ tools = fixture_tools, only = { 'grep' } })))
  -- a name codecompanion has is never taken over, whatever the prefix
  package.loaded['codecompanion.config'] =
    { interactions = { chat = { tools = { grep = { path = 'x' }, groups = { status = {} } } } } }
  local warned
  local notify = vim.notify
  vim.notify = function(msg)
    warned = msg
  end
  local bare = cc.tools({ tools = fixture_tools, prefix = '' })
  vim.notify = notify
  package.loaded['codecompanion.config'] = nil
  eq({ 'edit_file', 'multi_edit' }, (function()
    local k = vim.tbl_keys(bare)
    table.sort(k)
    return k
  end)(), 'names codecompanion has are left out')
  contains(warned, 'grep, status')
end)

test('codecompanion adapter: commands under 19 and 18, outputs answer the call either way', function()
  local cc = require('agentls.adapters.codecompanion')
  local tool = cc.tools({ tools = fixture_tools }).agentls_grep.callback()
  with_fake_calls({ content = 'a.txt:1:hit', isError = false }, function(calls)
    -- 19: cmd(tools, args, { input, output_cb, register_job })
    local got, job
    local tools = { tool = tool }
    eq(nil, tool.cmds[1](tools, { pattern = 'hit' }, {
      output_cb = function(o)
        got = o
      end,
      register_job = function(j)
        job = j
      end,
    }))
    wait_for('output_cb', function()
      return got ~= nil
    end, 2000)
    eq({ status = 'success', data = 'a.txt:1:hit' }, got)
    eq({ name = 'grep', args = { pattern = 'hit' } }, calls[1])
    eq('function', type(job and job.kill), 'a job codecompanion can stop')
    eq('a.txt:1:hit', tool.agentls_output, 'the output is kept on the call')
    -- 18: cmd(tools, args, input, output_handler)
    got = nil
    tool.cmds[1]({}, { pattern = 'hit' }, nil, function(o)
      got = o
    end)
    wait_for('output_handler', function()
      return got ~= nil
    end, 2000)
    eq('success', got.status)
    -- no callback at all: synchronous; missing args and JSON text become an object
    eq({ status = 'success', data = 'a.txt:1:hit' }, tool.cmds[1]({}, nil, nil))
    eq(getmetatable(vim.empty_dict()), getmetatable(calls[3].args), 'empty args are an object')
    tool.cmds[1]({}, '{"pattern":"x"}', nil)
    eq({ pattern = 'x' }, calls[4].args, 'arguments as JSON text')
  end)
  with_fake_calls({ content = 'path is outside the workspace', isError = true }, function()
    eq({ status = 'error', data = 'path is outside the workspace' }, tool.cmds[1]({}, {}, nil))
  end)
  local added = {}
  local chat = {
    add_tool_output = function(_, t, for_llm, for_user)
      added[#added + 1] = { id = t.function_call.id, llm = for_llm, user = for_user }
    end,
  }
  local function call(id) -- a fresh copy per call, as codecompanion makes
    local c = cc.tools({ tools = fixture_tools }).agentls_grep.callback()
    c.args, c.function_call = { pattern = 'hit' }, { id = id }
    return c
  end
  local tools18 = { chat = chat, bufnr = 1, stderr = {} }
  -- 19
  tool.output.success(call('s19'), { 'out1' }, { tools = { chat = chat } })
  tool.output.error(call('e19'), { 'earlier failure', 'bad' }, { tools = { chat = chat } })
  tool.output.rejected(call('r19'), { tools = { chat = chat }, opts = { reason = 'not now' } })
  tool.output.cancelled(call('c19'), { tools = { chat = chat } })
  -- 18
  tool.output.success(call('s18'), tools18, {}, { 'out2' })
  tool.output.error(call('e18'), tools18, {}, { 'bad18' })
  tool.output.rejected(call('r18'), tools18, {}, { reason = 'no' })
  tool.output.cancelled(call('c18'), tools18, {})
  local by = {}
  for _, a in ipairs(added) do
    by[a.id] = a
  end
  eq('out1', by.s19.llm)
  contains(by.s19.user, 'agentls_grep')
  eq('bad', by.e19.llm, "this call's error, not the turn's earlier ones")
  contains(by.r19.llm, 'declined')
  contains(by.r19.llm, 'not now')
  contains(by.c19.llm, 'cancelled')
  eq('out2', by.s18.llm)
  eq('bad18', by.e18.llm)
  contains(by.r18.llm, 'no')
  contains(by.c18.llm, 'cancelled')
  eq(8, #added, 'every outcome answered once')
  local prompt = tool.output.prompt(call('p'), { tools = {} })
  contains(prompt, 'agentls_grep')
  contains(prompt, '"pattern":"hit"')
end)

test('avante adapter: tool definitions are well-formed and named agentls_', function()
  local av = require('agentls.adapters.avante')
  local tools = av.tools({ tools = fixture_tools })
  eq(4, #tools)
  for _, t in ipairs(tools) do
    truthy(t.name:find('^agentls_'), t.name .. ': prefixed')
    eq('table', t.param.type, t.name .. ': param.type')
    eq('table', type(t.param.fields), t.name .. ': param.fields')
    eq('function', type(t.func), t.name .. ': func')
    eq('result', t.returns[1].name)
    eq(true, t.returns[2].optional)
    eq(nil, t.support_streaming, t.name .. ': no partial inputs')
    for _, f in ipairs(t.param.fields) do
      truthy(type(f.name) == 'string' and type(f.type) == 'string' and type(f.description) == 'string', 'field shape')
    end
  end
  local edit = tools[1]
  eq('agentls_edit_file', edit.name)
  eq({ 'new_string', 'old_string', 'path', 'replace_all' }, vim.tbl_map(function(f)
    return f.name
  end, edit.param.fields))
  eq(nil, edit.param.fields[1].optional)
  eq(true, edit.param.fields[4].optional)
  eq('boolean', edit.param.fields[4].type)
  local grep = tools[2]
  eq('integer', grep.param.fields[2].type, 'nullable type')
  eq({ 'content', 'files_with_matches', 'count' }, grep.param.fields[3].choices)
  local multi = tools[3]
  eq('array', multi.param.fields[1].type)
  eq('object', multi.param.fields[1].items.type)
  eq({}, tools[4].param.fields)
  -- a name avante has built in is left out rather than colliding
  package.loaded['avante.llm_tools'] = { _tools = { { name = 'grep' } } }
  local notify = vim.notify
  vim.notify = function() end
  local bare = av.tools({ tools = fixture_tools, prefix = '' })
  vim.notify = notify
  package.loaded['avante.llm_tools'] = nil
  eq({ 'edit_file', 'multi_edit', 'status' }, vim.tbl_map(function(t)
    return t.name
  end, bare))
end)

test('avante adapter: final input only, errors in the error slot, declines through avante', function()
  local av = require('agentls.adapters.avante')
  local by = {}
  for _, t in ipairs(av.tools({ tools = fixture_tools })) do
    by[t.name] = t
  end
  with_fake_calls({ content = 'a.txt:1:hit', isError = false }, function(calls)
    local got
    local r1, r2 = by.agentls_grep.func({ pattern = 'hit' }, { on_complete = function(res, err)
      got = { res, err }
    end })
    eq({ nil, nil }, { r1, r2 }, 'asynchronous')
    wait_for('on_complete', function()
      return got ~= nil
    end, 2000)
    eq({ 'a.txt:1:hit', nil }, got)
    got = nil
    by.agentls_grep.func({ pattern = 'hit' }, nil, function(res, err) -- the older signature
      got = { res, err }
    end)
    wait_for('on_complete', function()
      return got ~= nil
    end, 2000)
    eq('a.txt:1:hit', got[1])
    eq('a.txt:1:hit', (by.agentls_grep.func({ pattern = 'hit' })), 'synchronous without on_complete')
    local n = #calls
    package.loaded['avante.llm_tools.helpers'] = { confirm = function(_, cb)
      cb(true) -- approved: only the adapter keeps a partial input from running
    end }
    local completed = false
    eq({ nil, nil }, { by.agentls_edit_file.func({ path = 'a', old_string = 'x', new_string = 'y' }, {
      streaming = true,
      on_complete = function()
        completed = true
      end,
    }) })
    vim.wait(50, function()
      return completed
    end, 5)
    eq(n, #calls, 'a streaming partial call runs nothing')
    eq(false, completed, 'and answers nothing')
    -- approval through avante's own confirm
    local asked
    package.loaded['avante.llm_tools.helpers'] = {
      confirm = function(msg, cb, _, _, name)
        asked = { msg, name }
        cb(false, 'nope')
      end,
    }
    got = nil
    by.agentls_edit_file.func({ path = 'a', old_string = 'x', new_string = 'y' }, { on_complete = function(res, err)
      got = { res, err }
    end })
    package.loaded['avante.llm_tools.helpers'] = nil
    eq('agentls_edit_file', asked[2])
    eq(nil, got[1])
    eq('User declined, reason: nope', got[2])
    eq(n, #calls, 'a declined call runs nothing')
  end)
  with_fake_calls({ content = 'no such file', isError = true }, function()
    local res, err = by.agentls_grep.func({ pattern = 'x' })
    eq(nil, res)
    eq('no such file', err)
  end)
end)

test('adapters: without a server the plugin gets no tools and one warning, not an error', function()
  require('agentls.config').set({ cmd = { '/nonexistent/agentls', 'serve', '--stdio' }, autostart = false })
  local warnings = {}
  local notify = vim.notify
  vim.notify = function(msg)
    warnings[#warnings + 1] = msg
  end
  local ok, err = pcall(function()
    local cfg = require('agentls.adapters.codecompanion').config({ timeout_ms = 2000 })
    eq({ 'groups' }, vim.tbl_keys(cfg), 'only the (empty) group')
    eq({}, cfg.groups.agentls.tools)
    eq({}, require('agentls.adapters.avante').tools({ timeout_ms = 2000 }))
    eq({}, require('agentls.adapters.avante').tools({ timeout_ms = 2000 }), 'asked again')
  end)
  vim.notify = notify
  require('agentls.config').set({})
  if not ok then
    error(err, 0)
  end
  eq(2, #warnings, 'one warning per plugin: ' .. vim.inspect(warnings))
  contains(warnings[1], '/nonexistent/agentls')
  contains(warnings[1], 'codecompanion')
  contains(warnings[2], 'avante')
end)

test('client config: capabilities, handlers, settings both ways', function()
  local lsp = require('agentls.lsp')
  require('agentls.config').set({ settings = { bash = { allow = { 'go test' } } } })
  local cfg = lsp.client_config('/tmp/ws')
  eq('agentls', cfg.name)
  eq({ 'agentls', 'serve', '--stdio' }, cfg.cmd)
  eq(true, cfg.capabilities.experimental.agentls.saveDocument)
  truthy(cfg.capabilities.workspace.applyEdit, 'Neovim defaults kept')
  eq({ bash = { allow = { 'go test' } } }, cfg.init_options)
  eq({ agentls = { bash = { allow = { 'go test' } } } }, cfg.settings)
  for _, m in ipairs({ 'agentls/saveDocument', 'window/showMessageRequest', 'workspace/applyEdit' }) do
    eq('function', type(cfg.handlers[m]), m)
  end
  eq({ { uri = 'file:///tmp/ws', name = '/tmp/ws' } }, cfg.workspace_folders)
  eq(0, cfg.flags.debounce_text_changes, 'changes go out at once by default')
  eq(nil, cfg.on_init, 'navigation kept by default')
  require('agentls.config').set({ navigation = false })
  local fake = { server_capabilities = { definitionProvider = true, referencesProvider = true, hoverProvider = true } }
  lsp.client_config('/tmp/ws').on_init(fake)
  eq({ hoverProvider = true }, fake.server_capabilities, 'navigation dropped')
  require('agentls.config').set({ debounce_ms = 80 })
  eq(80, lsp.client_config('/tmp/ws').flags.debounce_text_changes)
  require('agentls.config').set({})
  eq(nil, lsp.client_config('/tmp/ws').init_options)
end)

test('roots: nearest .git, else the current directory holding it, else the file directory', function()
  local lsp = require('agentls.lsp')
  local ws = workspace({ ['sub/dir/x.txt'] = 'x\n' })
  local loose = vim.fs.normalize(vim.fn.resolve(vim.fn.tempname()))
  tmp_dirs[#tmp_dirs + 1] = loose
  vim.fn.mkdir(loose, 'p')
  vim.cmd('edit ' .. ws .. '/sub/dir/x.txt')
  local b1 = vim.api.nvim_get_current_buf()
  eq(ws, lsp.buffer_root(b1))
  eq(true, lsp.is_file_buffer(b1))
  vim.cmd('edit ' .. loose .. '/new.txt')
  local b2 = vim.api.nvim_get_current_buf()
  eq(loose, lsp.buffer_root(b2))
  eq(true, lsp.is_file_buffer(b2), 'a new file')
  local scratch = vim.api.nvim_create_buf(false, true)
  eq(false, lsp.is_file_buffer(scratch), 'scratch buffer')
  local uri = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(uri, 'fugitive:///x/y')
  eq(false, lsp.is_file_buffer(uri), 'URI buffer')
  eq(ws, lsp.dir_root(ws .. '/sub'))
  eq(loose, lsp.dir_root(loose))
  -- no marker: Neovim's current directory when the file is below it, unless it is $HOME or /
  vim.fn.mkdir(loose .. '/crates/core', 'p')
  local cwd, home = vim.fn.getcwd(), vim.env.HOME
  local ok, err = pcall(function()
    vim.cmd.cd(loose)
    vim.cmd('edit crates/core/main.rs')
    local b3 = vim.api.nvim_get_current_buf()
    eq(loose, lsp.buffer_root(b3), 'the current directory')
    eq(ws, lsp.buffer_root(b1), 'a marker still wins')
    vim.env.HOME = loose
    eq(loose .. '/crates/core', lsp.buffer_root(b3), 'not $HOME')
    vim.env.HOME = home
    vim.cmd.cd(loose .. '/crates/core')
    vim.cmd('edit ' .. loose .. '/new.txt')
    eq(loose, lsp.buffer_root(vim.api.nvim_get_current_buf()), 'a file outside it: its own directory')
  end)
  vim.env.HOME = home
  vim.cmd.cd(cwd)
  vim.cmd('silent %bwipeout!')
  if not ok then
    error(err, 0)
  end
end)

test('saveDocument writes the buffer; unknown files answer saved=false', function()
  local handlers = require('agentls.handlers')
  local ws = workspace({ ['s.txt'] = 'one\n' })
  vim.cmd('edit ' .. ws .. '/s.txt')
  local bufnr = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, { 'two' })
  eq({ saved = true }, handlers.save_document(nil, { uri = vim.uri_from_fname(ws .. '/s.txt') }))
  eq('two\n', read(ws .. '/s.txt'))
  eq(false, vim.bo[bufnr].modified)
  eq({ saved = false }, handlers.save_document(nil, { uri = vim.uri_from_fname(ws .. '/other.txt') }))
  eq({ saved = false }, handlers.save_document(nil, {}))
  vim.cmd('silent %bwipeout!')
end)

test('showMessageRequest goes through vim.ui.select', function()
  local handlers = require('agentls.handlers')
  local real = vim.ui.select
  local seen
  vim.ui.select = function(items, opts, cb)
    seen = { items = items, prompt = opts.prompt, label = opts.format_item(items[2]) }
    cb(items[2])
  end
  local answer
  coroutine.wrap(function()
    answer = handlers.show_message_request(nil, {
      type = 3,
      message = 'Allow bash: go test ./...?',
      actions = { { title = 'Allow' }, { title = 'Allow for this session' }, { title = 'Deny' } },
    })
  end)()
  wait_for('the answer', function()
    return answer ~= nil
  end, 2000)
  vim.ui.select = real
  eq({ title = 'Allow for this session' }, answer)
  eq('Allow for this session', seen.label)
  contains(seen.prompt, 'Allow bash')
end)

test('applyEdit: an edit made for an older buffer version is refused', function()
  local handlers = require('agentls.handlers')
  local ws = workspace({ ['v.txt'] = 'a\n' })
  vim.cmd('edit ' .. ws .. '/v.txt')
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_fname(ws .. '/v.txt')
  vim.lsp.util.buf_versions[bufnr] = 7
  local edit = function(version)
    return {
      documentChanges = {
        { textDocument = { uri = uri, version = version }, edits = {} },
      },
    }
  end
  eq(nil, handlers.stale_reason(edit(7)))
  contains(handlers.stale_reason(edit(5)), 'version 7')
  local r = handlers.apply_edit(nil, { edit = edit(5) }, { client_id = 1 })
  eq(false, r.applied)
  vim.lsp.util.buf_versions[bufnr] = nil
  vim.cmd('silent %bwipeout!')
end)

test('commands are defined by plugin/agentls.lua', function()
  local cmds = vim.api.nvim_get_commands({})
  for _, c in ipairs({ 'AgentlsTools', 'AgentlsCall', 'AgentlsStatus' }) do
    truthy(cmds[c], c .. ' defined')
  end
  -- nothing but the commands is loaded at startup
  eq(nil, package.loaded['agentls.commands'])
end)

if has_011 then
  test('lsp/agentls.lua gives vim.lsp.config a complete configuration', function()
    local cfg = vim.lsp.config.agentls
    eq({ 'agentls', 'serve', '--stdio' }, cfg.cmd)
    eq('function', type(cfg.root_dir))
    eq(true, cfg.capabilities.experimental.agentls.saveDocument)
    eq('function', type(cfg.handlers['agentls/saveDocument']))
    eq(0, cfg.flags.debounce_text_changes)
  end)
else
  skip('lsp/agentls.lua gives vim.lsp.config a complete configuration', 'Neovim < 0.11 has no vim.lsp.config')
end

test(':AgentlsCall completes tool names, first argument only', function()
  local agentls = require('agentls')
  local saved = agentls.last_tools
  agentls.last_tools = fixture_tools
  local commands = require('agentls.commands')
  eq({ 'edit_file' }, commands.complete('ed', 'AgentlsCall ed'))
  eq({ 'edit_file', 'grep', 'multi_edit', 'status' }, commands.complete('', 'AgentlsCall '))
  eq({}, commands.complete('', 'AgentlsCall grep '))
  eq({}, commands.complete('{"pa', 'AgentlsCall grep {"pa'))
  agentls.last_tools = saved
end)

--- The lua code blocks of the doc section starting at tag (up to the next section tag).
local function doc_blocks(tag)
  local text = read(plugin_root .. '/doc/agentls.txt')
  local from = assert(text:find('*' .. tag .. '*', 1, true), tag .. ' in doc/agentls.txt')
  local to = text:find('\n[^\n]-%*agentls%-[%w-]+%*', from + #tag + 2) or #text
  local blocks = {}
  for code in text:sub(from, to):gmatch('>lua\n(.-)\n<\n') do
    blocks[#blocks + 1] = code
  end
  return blocks
end

test('lazy.nvim: the documented specs put lua/agentls, the commands and :help on the runtimepath', function()
  local specs = doc_blocks('agentls-lazy')
  eq(2, #specs, 'a spec for the repository and one for a clone')
  local readme = read(plugin_root .. '/README.md'):match('With lazy.nvim.-```lua\n(.-)\n```')
  eq(specs[1]:gsub('\n    ', '\n'):gsub('^    ', ''), readme, 'README.md shows the same spec')
  -- lazy.nvim installs the whole repository: a copy of this plugin at editors/neovim of a tree
  local repo = vim.fs.normalize(vim.fn.resolve(vim.fn.tempname()))
  tmp_dirs[#tmp_dirs + 1] = repo
  vim.fn.mkdir(repo .. '/editors', 'p')
  vim.fn.system({ 'cp', '-R', plugin_root, repo .. '/editors/neovim' })
  eq(0, vim.v.shell_error, 'copy of the plugin')
  vim.fn.delete(repo .. '/editors/neovim/doc/tags')
  local saved = { rtp = vim.o.runtimepath, loaded = vim.g.loaded_agentls, modules = {} }
  local function unload()
    for name in pairs(package.loaded) do
      if name == 'agentls' or name:find('^agentls%.') then
        saved.modules[name] = saved.modules[name] or package.loaded[name]
        package.loaded[name] = nil
      end
    end
  end
  local function fresh()
    unload()
    vim.o.runtimepath = table.concat(vim.tbl_filter(function(d)
      return vim.fs.normalize(d) ~= plugin_root
    end, vim.split(saved.rtp, ',')), ',')
    vim.g.loaded_agentls = nil
    pcall(vim.api.nvim_del_user_command, 'AgentlsTools')
    eq({}, vim.api.nvim_get_runtime_file('lua/agentls/init.lua', true), 'not on the runtimepath before')
  end
  local ok, err = pcall(function()
    for i, code in ipairs(specs) do
      fresh()
      local spec = assert(loadstring('return ' .. code:gsub('~/src/agentls', repo)))()
      local plugin
      if spec.dir then
        -- a local directory: lazy.nvim puts dir itself on the runtimepath and sources plugin/
        eq('agentls', spec.name)
        contains(spec.build, 'go build -o editors/neovim/bin/agentls ./cmd/agentls')
        plugin = { dir = vim.fs.normalize(vim.fn.expand(spec.dir)), name = spec.name }
        vim.opt.runtimepath:append(plugin.dir)
        vim.cmd('runtime! plugin/**/*.lua')
      else
        eq('agentls/agentls', spec[1], 'the repository')
        eq('go build -o editors/neovim/bin/agentls ./cmd/agentls', spec.build, 'build, run in the clone')
        plugin = { dir = repo, name = 'agentls' }
        vim.opt.runtimepath:append(plugin.dir)
      end
      spec.config(plugin, {})
      local found = vim.api.nvim_get_runtime_file('lua/agentls/init.lua', true)
      eq({ repo .. '/editors/neovim/lua/agentls/init.lua' }, found, 'spec ' .. i .. ': lua/agentls')
      eq(repo .. '/editors/neovim', require('agentls.config').plugin_dir(), 'spec ' .. i .. ': loaded from there')
      truthy(vim.api.nvim_get_commands({}).AgentlsTools, 'spec ' .. i .. ': commands defined')
      if not spec.dir then
        truthy(vim.fn.filereadable(repo .. '/editors/neovim/doc/tags') == 1, ':help tags made')
        truthy(vim.tbl_contains(vim.fn.getcompletion('agentls-lazy', 'help'), 'agentls-lazy'), ':help agentls-lazy')
      end
    end
  end)
  unload()
  for name, mod in pairs(saved.modules) do
    package.loaded[name] = mod
  end
  vim.o.runtimepath = saved.rtp
  vim.g.loaded_agentls = saved.loaded
  vim.cmd('runtime plugin/agentls.lua')
  vim.api.nvim_clear_autocmds({ group = vim.api.nvim_create_augroup('agentls', { clear = true }) })
  if not ok then
    error(err, 0)
  end
end)

test('API: bad input is an error, not a crash', function()
  local agentls = require('agentls')
  local got
  agentls.call('', {}, function(res, err)
    got = { res, err }
  end)
  wait_for('callback', function()
    return got ~= nil
  end, 1000)
  eq(nil, got[1])
  contains(got[2], 'tool name')
  local res, err = agentls.call_sync('read_file', '{not json', 1000)
  eq(nil, res)
  contains(err, 'not a JSON object')
end)

------------------------------------------------------------------------------------------------
-- End to end: a real agentls
------------------------------------------------------------------------------------------------

local bin = os.getenv('AGENTLS_BIN')
local e2e = {}
local function e2e_test(name, fn)
  e2e[#e2e + 1] = { name = name, fn = fn }
end

local function client_for(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'agentls' })[1]
end

local function wait_attached(bufnr)
  wait_for('agentls to attach and initialize', function()
    local c = client_for(bufnr)
    return c ~= nil and c.initialized == true
  end, 15000)
  return client_for(bufnr)
end

--- Stops every agentls client: shutdown and exit, forced after five seconds.
local function stop_all_clients()
  for _, force in ipairs({ false, true }) do
    for _, c in ipairs(vim.lsp.get_clients({ name = 'agentls' })) do
      if has_011 then
        c:stop(force)
      else
        c.stop(force)
      end
    end
    if vim.wait(5000, function()
      return #vim.lsp.get_clients({ name = 'agentls' }) == 0
    end, 20) then
      return
    end
  end
end

local function call_ok(name, args)
  local res, err = require('agentls').call_sync(name, args, 15000)
  truthy(res, ('%s failed to run: %s'):format(name, tostring(err)))
  if res.isError then
    error(('%s returned an error: %s'):format(name, res.content), 2)
  end
  return res.content
end

if has_011 then
  e2e_test('0.11+: vim.lsp.enable("agentls") attaches and the API uses that client', function()
    vim.lsp.config('agentls', { cmd = { bin, 'serve', '--stdio' } })
    vim.lsp.enable('agentls')
    local ok, err = pcall(function()
      local ws = workspace({ ['e.txt'] = 'enabled\n' })
      vim.cmd('edit ' .. ws .. '/e.txt')
      local c = wait_attached(vim.api.nvim_get_current_buf())
      eq(ws, vim.fs.normalize(c.root_dir))
      eq(bin, require('agentls.lsp').cmd()[1])
      contains(call_ok('read_file', { path = 'e.txt' }), 'enabled')
    end)
    vim.lsp.enable('agentls', false)
    stop_all_clients()
    vim.cmd('silent %bwipeout!')
    if not ok then
      error(err, 0)
    end
  end)
end

local W -- the main workspace of the end-to-end tests

e2e_test('setup() attaches agentls to a file buffer in a workspace', function()
  W = workspace({
    ['a.txt'] = 'alpha\nbeta\ngamma\n',
    ['dirty.txt'] = 'one\ntwo\n',
    ['stale.txt'] = 'left\nright\n',
    ['main.go'] = 'package main\n\nfunc Hello() string { return "hi" }\n',
  })
  -- a buffer opened before setup() is attached by it
  vim.cmd('edit ' .. W .. '/main.go')
  local early = vim.api.nvim_get_current_buf()
  require('agentls').setup({
    cmd = { bin, 'serve', '--stdio' },
    settings = { approval = { write_file = 'ask' } },
  })
  local c = wait_attached(early)
  eq(W, vim.fs.normalize(c.root_dir))
  eq({ { uri = vim.uri_from_fname(W), name = W } }, c.workspace_folders)
  -- a second file of the same root reuses the client
  vim.cmd('edit ' .. W .. '/a.txt')
  local c2 = wait_attached(vim.api.nvim_get_current_buf())
  eq(c.id, c2.id, 'one client per root')
  -- buffers that are not files are left alone
  local scratch = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_call(scratch, function()
    vim.cmd('doautocmd BufNewFile')
  end)
  eq(nil, client_for(scratch), 'scratch buffer not attached')
end)

e2e_test('each workspace root gets its own client; opts.bufnr picks it', function()
  local W2 = workspace({ ['only-here.txt'] = 'second workspace\n' })
  vim.cmd('edit ' .. W2 .. '/only-here.txt')
  local b2 = vim.api.nvim_get_current_buf()
  local c2 = wait_attached(b2)
  vim.cmd('edit ' .. W .. '/a.txt')
  local b1 = vim.api.nvim_get_current_buf()
  truthy(client_for(b1).id ~= c2.id, 'a second client')
  eq(W2, vim.fs.normalize(c2.root_dir))
  local res = require('agentls').call_sync('read_file', { path = 'only-here.txt' }, 15000, { bufnr = b2 })
  truthy(res and not res.isError, 'read in the second workspace')
  contains(res.content, 'second workspace')
  res = require('agentls').call_sync('read_file', { path = 'only-here.txt' }, 15000)
  eq(true, res.isError, 'not in the first workspace: ' .. res.content)
  vim.cmd('silent bwipeout! ' .. b2)
end)

e2e_test('a new file that exists only in its buffer can be read', function()
  vim.cmd('edit ' .. W .. '/brand-new.txt')
  local bufnr = vim.api.nvim_get_current_buf()
  wait_attached(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, { 'not on disk yet' })
  eq(0, vim.fn.filereadable(W .. '/brand-new.txt'))
  contains(call_ok('read_file', { path = 'brand-new.txt' }), 'not on disk yet')
  vim.cmd('silent bwipeout! ' .. bufnr)
  vim.cmd('edit ' .. W .. '/a.txt')
end)

e2e_test('a [No Name] buffer attaches as soon as :write or :saveas names it', function()
  vim.cmd('enew')
  local b = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(b, 0, -1, false, { 'written from no name' })
  eq(nil, client_for(b), 'a [No Name] buffer is not attached')
  vim.cmd('silent write ' .. W .. '/noname.txt')
  truthy(client_for(b), ':write name attaches at once')
  wait_attached(b)
  contains(call_ok('read_file', { path = 'noname.txt' }), 'written from no name')
  vim.cmd('enew')
  local b2 = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(b2, 0, -1, false, { 'saved as' })
  vim.cmd('silent saveas ' .. W .. '/saveas.txt')
  truthy(client_for(b2), ':saveas attaches at once')
  vim.api.nvim_buf_set_lines(b2, 0, -1, false, { 'saved as, then changed' })
  contains(call_ok('read_file', { path = 'saveas.txt' }), 'then changed')
  vim.cmd('silent bwipeout! ' .. b .. ' ' .. b2)
  vim.cmd('edit ' .. W .. '/a.txt')
end)

e2e_test('without .git, a file below the current directory is rooted there', function()
  local proj = vim.fs.normalize(vim.fn.resolve(vim.fn.tempname()))
  tmp_dirs[#tmp_dirs + 1] = proj
  vim.fn.mkdir(proj .. '/crates/core', 'p')
  local f = assert(io.open(proj .. '/crates/core/main.rs', 'wb'))
  f:write('fn main() { println!("core"); }\n')
  f:close()
  local cwd = vim.fn.getcwd()
  local ok, err = pcall(function()
    vim.cmd.cd(proj)
    vim.cmd('edit crates/core/main.rs')
    local b = vim.api.nvim_get_current_buf()
    eq(proj, vim.fs.normalize(wait_attached(b).root_dir), 'the root')
    contains(call_ok('read_file', { path = 'crates/core/main.rs' }), 'println!("core")')
    vim.cmd('silent bwipeout! ' .. b)
  end)
  vim.cmd.cd(cwd)
  vim.cmd('edit ' .. W .. '/a.txt')
  if not ok then
    error(err, 0)
  end
end)

e2e_test('edits land at the right place after multi-byte text (UTF-16 positions)', function()
  local path = W .. '/utf.txt'
  local f = assert(io.open(path, 'wb'))
  f:write('h\195\169llo \240\159\142\137 \228\184\150\231\149\140 w\195\182rld\nnext\n')
  f:close()
  vim.cmd('edit ' .. path)
  local bufnr = vim.api.nvim_get_current_buf()
  wait_attached(bufnr)
  call_ok('read_file', { path = 'utf.txt' })
  call_ok('edit_file', { path = 'utf.txt', old_string = 'w\195\182rld', new_string = 'WORLD' })
  eq('h\195\169llo \240\159\142\137 \228\184\150\231\149\140 WORLD\nnext', buf_text(bufnr))
  wait_for('the buffer to be saved', function()
    return not vim.bo[bufnr].modified
  end, 5000)
  eq('h\195\169llo \240\159\142\137 \228\184\150\231\149\140 WORLD\nnext\n', read(path))
  vim.cmd('edit ' .. W .. '/a.txt')
end)

e2e_test('tools_sync lists the built-ins with their schemas', function()
  local tools, err = require('agentls').tools_sync(10000)
  truthy(tools, err)
  local by = {}
  for _, t in ipairs(tools) do
    by[t.name] = t
  end
  local builtins = { 'read_file', 'ls', 'glob', 'grep', 'code_index', 'write_file', 'edit_file', 'multi_edit', 'bash' }
  for _, name in ipairs(builtins) do
    truthy(by[name], 'tool ' .. name .. ' listed')
    eq('object', by[name].inputSchema.type, name .. ' schema type')
    truthy(by[name].description ~= '', name .. ' description')
  end
  eq(true, by.read_file.readOnly)
  eq(false, by.edit_file.readOnly)
  truthy(by.read_file.inputSchema.properties.path, 'read_file has path')
  truthy(by.edit_file.inputSchema.properties.old_string, 'edit_file has old_string')
  local names = vim.tbl_map(function(t)
    return t.name
  end, tools)
  local sorted = vim.deepcopy(names)
  table.sort(sorted)
  eq(sorted, names, 'tools sorted by name')
end)

e2e_test('an unsaved buffer change is what read_file and grep return', function()
  vim.cmd('edit ' .. W .. '/a.txt')
  local bufnr = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(bufnr, 1, 2, false, { 'UNSAVED_MARKER' })
  eq(true, vim.bo[bufnr].modified)
  contains(read(W .. '/a.txt'), 'beta', 'disk unchanged')
  contains(call_ok('read_file', { path = 'a.txt' }), 'UNSAVED_MARKER', 'read_file')
  local hits = call_ok('grep', { pattern = 'UNSAVED_MARKER', output_mode = 'content' })
  contains(hits, 'a.txt:2:UNSAVED_MARKER', 'grep')
  vim.cmd('silent edit!') -- drop the change
  eq('alpha\nbeta\ngamma', buf_text(bufnr))
end)

e2e_test('edit_file edits a clean buffer through applyEdit, saves it, and :undo restores it', function()
  vim.cmd('edit ' .. W .. '/a.txt')
  local bufnr = vim.api.nvim_get_current_buf()
  eq(false, vim.bo[bufnr].modified)
  call_ok('read_file', { path = 'a.txt' })
  local r = call_ok('edit_file', { path = 'a.txt', old_string = 'beta', new_string = 'BETA' })
  -- no other language server and no diagnostics for the buffer: nothing to wait for
  contains(r, 'the editor reports no errors or warnings in the changed files')
  truthy(not r:find('no diagnostics update', 1, true), 'no wait for diagnostics that cannot come:\n' .. r)
  eq('alpha\nBETA\ngamma', buf_text(bufnr), 'the buffer has the edit')
  wait_for('the buffer to be saved', function()
    return not vim.bo[bufnr].modified
  end, 5000)
  eq('alpha\nBETA\ngamma\n', read(W .. '/a.txt'), 'disk has the edit')
  vim.cmd('silent undo')
  eq('alpha\nbeta\ngamma', buf_text(bufnr), ':undo restores')
  vim.cmd('silent write')
end)

e2e_test('edit_file on a buffer with unsaved changes leaves it unsaved', function()
  vim.cmd('edit ' .. W .. '/dirty.txt')
  local bufnr = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(bufnr, 0, 1, false, { 'ONE (typed)' })
  vim.cmd('let &undolevels = &undolevels')
  contains(call_ok('read_file', { path = 'dirty.txt' }), 'ONE (typed)')
  local msg = call_ok('edit_file', { path = 'dirty.txt', old_string = 'two', new_string = 'TWO' })
  eq('ONE (typed)\nTWO', buf_text(bufnr), 'the buffer has both changes')
  -- a save would have come before the answer (the result says whether the file was saved)
  eq(true, vim.bo[bufnr].modified, 'still unsaved')
  eq('one\ntwo\n', read(W .. '/dirty.txt'), 'disk untouched')
  contains(msg, 'disk', 'the result says the change is not on disk')
  vim.cmd('silent undo')
  eq('ONE (typed)\ntwo', buf_text(bufnr), ':undo removes only the agent edit')
  vim.cmd('silent edit!')
end)

e2e_test('an edit after the user changed the buffer since the agent read it is refused', function()
  vim.cmd('edit ' .. W .. '/stale.txt')
  local bufnr = vim.api.nvim_get_current_buf()
  call_ok('read_file', { path = 'stale.txt' })
  vim.api.nvim_buf_set_lines(bufnr, 0, 1, false, { 'LEFT (typed after the read)' })
  local res, err = require('agentls').call_sync(
    'edit_file',
    { path = 'stale.txt', old_string = 'right', new_string = 'RIGHT' },
    15000
  )
  truthy(res, err)
  eq(true, res.isError, 'refused: ' .. res.content)
  eq('LEFT (typed after the read)\nright', buf_text(bufnr), 'buffer untouched by the agent')
  vim.cmd('silent edit!')
end)

e2e_test('settings reach the server: write_file asks through vim.ui.select', function()
  local real = vim.ui.select
  local answer, asked = 'Deny', nil
  vim.ui.select = function(items, opts, cb)
    asked = opts.prompt
    for _, item in ipairs(items) do
      if item.title == answer then
        return cb(item)
      end
    end
    cb(nil)
  end
  local ok, err = pcall(function()
    local res = require('agentls').call_sync('write_file', { path = 'new.txt', content = 'created\n' }, 15000)
    truthy(res)
    contains(asked, 'write_file', 'the question')
    eq(true, res.isError, 'denied: ' .. res.content)
    eq(0, vim.fn.filereadable(W .. '/new.txt'), 'not written')
    answer, asked = 'Allow', nil
    call_ok('write_file', { path = 'new.txt', content = 'created\n' })
    truthy(asked, 'asked again')
    eq('created\n', read(W .. '/new.txt'))
  end)
  vim.ui.select = real
  if not ok then
    error(err, 0)
  end
end)

e2e_test('edit_file of a file not read in this session is refused', function()
  local res =
    require('agentls').call_sync('edit_file', { path = 'main.go', old_string = 'hi', new_string = 'hello' }, 15000)
  truthy(res)
  eq(true, res.isError, 'read-before-write')
end)

e2e_test('call_batch runs several calls in order', function()
  local results, err = require('agentls').call_batch_sync({
    { name = 'read_file', arguments = { path = 'main.go' } },
    { name = 'grep', arguments = { pattern = 'gamma' } },
    { name = 'no_such_tool', arguments = {} },
  }, 15000)
  truthy(results, err)
  eq(3, #results)
  contains(results[1].content, 'func Hello')
  contains(results[2].content, 'a.txt')
  eq(true, results[3].isError, 'unknown tool is an error result')
end)

e2e_test('a call can be cancelled; the callback runs once', function()
  local got, n = nil, 0
  local handle = require('agentls').call('read_file', { path = 'a.txt' }, function(res, err)
    got, n = { res, err }, n + 1
  end)
  handle.cancel()
  eq('cancelled', got and got[2])
  -- the server's late answer (if any) arrives before the answer to a later request
  call_ok('read_file', { path = 'a.txt' })
  eq(1, n, 'one callback')
end)

e2e_test('cancelling a running bash call stops its process', function()
  if vim.fn.executable('pgrep') ~= 1 then
    error('pgrep is needed to watch the process')
  end
  local real = vim.ui.select
  vim.ui.select = function(items, _, cb) -- allow, should bash ask
    for _, item in ipairs(items) do
      if item.title == 'Allow' then
        return cb(item)
      end
    end
    cb(nil)
  end
  local command = ('sleep 29.%03d'):format(vim.uv.hrtime() % 1000)
  local function running()
    vim.fn.system({ 'pgrep', '-f', command })
    return vim.v.shell_error == 0
  end
  local ok, err = pcall(function()
    local got
    local handle = require('agentls').call('bash', { command = command }, function(res, e)
      got = { res, e }
    end)
    wait_for('`' .. command .. '` to start', running, 10000)
    eq(nil, got, 'still running')
    handle.cancel()
    eq('cancelled', got and got[2])
    wait_for('`' .. command .. '` to be killed', function()
      return not running()
    end, 10000)
  end)
  vim.ui.select = real
  if not ok then
    error(err, 0)
  end
end)

e2e_test(':AgentlsCall puts the result in a buffer', function()
  vim.cmd('AgentlsCall read_file {"path": "main.go"}')
  local name = 'agentls://call/read_file'
  wait_for('the result buffer', function()
    local b = find_buf(name)
    return b ~= nil and buf_text(b):find('func Hello', 1, true) ~= nil
  end, 10000)
  local first = find_buf(name)
  eq({ name = 'read_file', isError = false }, vim.b[first].agentls_result)
  -- a second call reuses the buffer; an error result is marked
  vim.cmd('AgentlsCall read_file {"path": "no/such/file.txt"}')
  wait_for('the second result', function()
    return vim.b[first].agentls_result and vim.b[first].agentls_result.isError == true
  end, 10000)
  eq(first, find_buf(name))
  truthy(not buf_text(first):find('func Hello', 1, true), 'content replaced')
  vim.cmd('silent! bwipeout! ' .. first)
end)

e2e_test(':AgentlsCall without arguments prompts with a prefill from the schema', function()
  local real = vim.ui.input
  local seen
  vim.ui.input = function(opts, cb)
    seen = opts
    cb('{"pattern": "gamma", "output_mode": "content"}')
  end
  vim.cmd('AgentlsCall grep')
  local name = 'agentls://call/grep'
  local ok = vim.wait(10000, function()
    local b = find_buf(name)
    return b ~= nil and buf_text(b):find('a.txt:3:gamma', 1, true) ~= nil
  end, 10)
  vim.ui.input = real
  truthy(ok, 'grep result buffer')
  eq('{"pattern":""}', seen.default)
  contains(seen.prompt, 'grep(pattern')
  vim.cmd('silent! bwipeout! ' .. find_buf(name))
end)

e2e_test(':AgentlsTools lists the tools; <CR> shows a schema', function()
  vim.cmd('AgentlsTools')
  wait_for('the tools buffer', function()
    return find_buf('agentls://tools') ~= nil
  end, 10000)
  local b = find_buf('agentls://tools')
  local lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  local row
  for i, l in ipairs(lines) do
    if l:match('^read_file%s') then
      row = i
    end
  end
  truthy(row, 'read_file listed')
  vim.api.nvim_set_current_win(vim.fn.bufwinid(b))
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  local s = find_buf('agentls://schema/read_file')
  truthy(s, 'schema buffer')
  contains(buf_text(s), '"path"')
  contains(buf_text(s), '# read_file (read-only)')
  vim.cmd('silent! bwipeout! ' .. s)
  vim.cmd('silent! bwipeout! ' .. b)
end)

e2e_test('index_status reports the symbol index (agentls.indexStatus)', function()
  local status, err
  wait_for('the index to be ready', function()
    status, err = require('agentls').index_status_sync(5000)
    if not status then
      error(err, 0) -- an error answer will not change: report it now
    end
    return status.state == 'ready'
  end, 15000)
  truthy(type(status.files) == 'number' and status.files >= 1, 'files: ' .. vim.inspect(status))
  truthy(type(status.symbols) == 'number' and status.symbols >= 1, 'symbols: ' .. vim.inspect(status))
  contains(vim.inspect(status.languages), 'go', 'languages')
end)

e2e_test(':AgentlsStatus shows the server, folders and index', function()
  vim.cmd('edit ' .. W .. '/a.txt')
  local text = vim.api.nvim_exec2('AgentlsStatus', { output = true }).output
  contains(text, W)
  contains(text, 'index:')
  contains(text, bin)
end)

e2e_test(':checkhealth agentls reports OK', function()
  vim.cmd('checkhealth agentls')
  local text
  wait_for('the health report', function()
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.bo[b].filetype == 'checkhealth' then
        text = buf_text(b)
        if text:find('index', 1, true) then
          return true
        end
      end
    end
    return false
  end, 15000)
  contains(text, 'OK')
  contains(text, bin)
  truthy(not text:find('ERROR', 1, true), 'no ERROR in:\n' .. text)
  vim.cmd('silent! tabonly')
  vim.cmd('silent! only')
end)

-- The adapters inside a model of each plugin (tests/model/, the plugin versions named there),
-- through the scripted session of tests/scenario.lua; every step is a result line of its own.
do
  local drivers = require('model.drivers')
  for _, make in ipairs({
    function()
      return drivers.codecompanion(19)
    end,
    function()
      return drivers.codecompanion(18)
    end,
    drivers.avante,
  }) do
    local driver = make()
    e2e_test(driver.name .. ': scripted session', function()
      local failed = {}
      require('scenario').run(driver, {
        eq = eq,
        truthy = truthy,
        contains = contains,
        wait_for = wait_for,
        workspace = workspace,
        wait_attached = wait_attached,
        step = function(name, fn)
          test('  ' .. name, fn, function(err)
            failed[#failed + 1] = name .. ': ' .. err:match('^[^\n]*')
          end)
        end,
      })
      if driver.teardown then
        driver.teardown()
      end
      vim.cmd('silent %bwipeout!')
      if #failed > 0 then
        error(#failed .. ' step(s) failed', 0)
      end
    end)
  end
end

e2e_test('with no client running, the API starts one for the current directory', function()
  stop_all_clients()
  require('agentls').setup({ cmd = { bin, 'serve', '--stdio' }, autostart = false })
  local cwd = vim.fn.getcwd()
  vim.cmd('silent %bwipeout!')
  vim.cmd.cd(W .. '/.git') -- the root is found upwards from here
  local ok, err = pcall(function()
    eq(0, #vim.lsp.get_clients({ name = 'agentls' }))
    contains(call_ok('read_file', { path = 'main.go' }), 'func Hello')
    local clients = vim.lsp.get_clients({ name = 'agentls' })
    eq(1, #clients)
    eq(W, vim.fs.normalize(clients[1].root_dir))
    -- autostart = false: opening a file does not attach it, yet the API finds its root's client
    vim.cmd('edit ' .. W .. '/a.txt')
    eq(nil, client_for(vim.api.nvim_get_current_buf()))
    contains(call_ok('read_file', { path = 'a.txt' }), 'alpha')
    eq(1, #vim.lsp.get_clients({ name = 'agentls' }))
  end)
  vim.cmd.cd(cwd)
  if not ok then
    error(err, 0)
  end
end)

e2e_test('a call ends with an error when the server dies before answering', function()
  local clients = vim.lsp.get_clients({ name = 'agentls' })
  eq(1, #clients, 'one server running')
  local real = vim.ui.select
  vim.ui.select = function(items, _, cb)
    cb(items[1]) -- Allow, should bash ask
  end
  local command = ('sleep 28.%03d'):format(vim.uv.hrtime() % 1000)
  local ok, err = pcall(function()
    local got
    require('agentls').call('bash', { command = command }, function(res, e)
      got = { res, e }
    end)
    wait_for('`' .. command .. '` to start', function()
      vim.fn.system({ 'pgrep', '-f', command })
      return vim.v.shell_error == 0
    end, 10000)
    local pids = vim.fn.systemlist({ 'pgrep', '-P', tostring(vim.fn.getpid()), '-f', bin })
    eq(1, #pids, 'the server process')
    vim.uv.kill(tonumber(pids[1]), 'sigkill')
    wait_for('the callback', function()
      return got ~= nil
    end, 10000)
    eq(nil, got[1])
    contains(got[2], 'exited')
  end)
  -- the killed server could not stop its shell: end the orphan (by pid, the command is unique)
  for _, pid in ipairs(vim.fn.systemlist({ 'pgrep', '-f', command })) do
    if tonumber(pid) then
      vim.uv.kill(tonumber(pid), 'sigterm')
    end
  end
  vim.ui.select = real
  if not ok then
    error(err, 0)
  end
end)

if not bin or bin == '' then
  for _, t in ipairs(e2e) do
    skip(t.name, 'AGENTLS_BIN is not set')
  end
elseif vim.fn.executable(bin) ~= 1 then
  test('AGENTLS_BIN is executable', function()
    error(bin .. ' is not executable')
  end)
else
  -- Once the server cannot be attached, the rest fail at once instead of each waiting it out.
  local attached = true
  for _, t in ipairs(e2e) do
    test(t.name, function()
      if not attached then
        error('not run: agentls never attached (see the first end-to-end failure)', 0)
      end
      t.fn()
    end, function(err)
      if err:find('agentls to attach and initialize', 1, true) then
        attached = false
      end
    end)
  end
end

------------------------------------------------------------------------------------------------

stop_all_clients()
for _, dir in ipairs(tmp_dirs) do
  vim.fn.delete(dir, 'rf')
end
out(('%d passed, %d failed, %d skipped'):format(counts.passed, counts.failed, counts.skipped))
os.exit(counts.failed > 0 and 1 or 0)
