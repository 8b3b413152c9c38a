-- The scripted agent session the adapters are tested with, the same against a model of each
-- plugin (tests/run.lua, in CI) and against real checkouts (tests/real-plugins.sh). A driver puts
-- the adapter into one plugin and runs the model's tool calls through that plugin's own path:
--
--   driver.name                         what the report calls it
--   driver.setup(adapter_opts, bufnr)   configures the plugin with the adapter (bufnr: the
--                                       buffer the chat is opened from)
--   driver.offered()                    function name -> parameters, as the request carries them
--   driver.own_tools_intact()           nil, or why the plugin's own tools were changed
--   driver.turn(calls, decide, stop_when)
--                                       runs one response's calls ({id, name, arguments}) to the
--                                       end; decide(name) -> 'accept' | 'reject', reason |
--                                       'cancel' answers approval prompts; when stop_when() turns
--                                       true, the user presses Stop (drivers with can_stop).
--                                       Returns the tool answers the next request would carry, in
--                                       order: {id, content, is_error?, declined?}
--   driver.partial(call)                optional: the call as a still-streaming partial input
--   driver.stops                        optional: why each turn's loop stopped (avante)
--   driver.kind                         'codecompanion' | 'avante'
--
-- t gives the checks: step(name, fn) (one result line each), eq, truthy, contains, wait_for,
-- workspace(files) -> dir, wait_attached(bufnr).

local M = {}

local prefix = 'agentls_'

--- Wraps require('agentls').call to count the calls that reach the server.
local function count_calls()
  local agentls = require('agentls')
  local real = agentls.call
  local log = {}
  agentls.call = function(name, args, cb, opts)
    log[#log + 1] = name
    return real(name, args, cb, opts)
  end
  return log, function()
    agentls.call = real
  end
end

---@param driver table
---@param t table
function M.run(driver, t)
  local eq, truthy, contains = t.eq, t.truthy, t.contains
  local ws = t.workspace({
    ['a.txt'] = 'alpha\nbeta\ngamma\n',
    ['notes.txt'] = 'on disk\n',
    ['src/b.txt'] = 'gamma ray\n',
  })
  vim.o.hidden = true
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/notes.txt'))
  local notes = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(notes, 0, -1, false, { 'unsaved note' })
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/a.txt'))
  local a = vim.api.nvim_get_current_buf()
  t.wait_attached(a)
  local asked = {}
  local function decide_with(rules)
    return function(name)
      asked[#asked + 1] = name
      local r = rules[name] or { 'accept' }
      return r[1], r[2]
    end
  end
  local log, restore = count_calls()
  local ok, err = pcall(function()
    driver.setup({ require_approval = 'writes' }, a)

    local function answered(calls, answers)
      eq(#calls, #answers, 'one answer per call')
      for i, c in ipairs(calls) do
        eq(c.id, answers[i].id, 'answer ' .. i .. ' carries the call id')
      end
    end

    t.step(driver.name .. ': offers every agentls tool as agentls_<name> with its schema', function()
      local offered = driver.offered()
      local server = require('agentls').tools_sync()
      for _, tool in ipairs(server) do
        local params = offered[prefix .. tool.name]
        truthy(params, prefix .. tool.name .. ' is offered')
        local want = vim.tbl_keys(tool.inputSchema.properties or {})
        local got = vim.tbl_keys(params.properties or {})
        table.sort(want)
        table.sort(got)
        eq(want, got, tool.name .. ': properties')
        local want_req = vim.deepcopy(tool.inputSchema.required or {})
        local got_req = vim.deepcopy(params.required or {})
        table.sort(want_req)
        table.sort(got_req)
        eq(want_req, got_req, tool.name .. ': required')
        for k, p in pairs(tool.inputSchema.properties or {}) do
          if type(p.type) == 'string' then
            eq(p.type, params.properties[k].type, tool.name .. '.' .. k .. ': type')
          end
        end
      end
      eq(nil, driver.own_tools_intact(), "the plugin's own tools are untouched")
    end)

    t.step(driver.name .. ': read_file sees the unsaved buffer; edit_file lands as one undo step', function()
      local before = vim.fn.undotree(a).seq_cur
      local calls = {
        { id = 'call_read', name = prefix .. 'read_file', arguments = { path = ws .. '/notes.txt' } },
        { id = 'call_read_a', name = prefix .. 'read_file', arguments = { path = ws .. '/a.txt' } },
        {
          id = 'call_edit',
          name = prefix .. 'edit_file',
          arguments = { path = ws .. '/a.txt', old_string = 'beta', new_string = 'BETA\nBETA2' },
        },
      }
      asked = {}
      local answers = driver.turn(calls, decide_with({}))
      answered(calls, answers)
      contains(answers[1].content, 'unsaved note', 'read_file answer')
      truthy(not answers[1].is_error, 'read_file is no error')
      truthy(not answers[3].is_error, 'edit_file is no error: ' .. answers[3].content)
      eq({ prefix .. 'edit_file' }, asked, 'only the edit asked for approval')
      eq({ 'alpha', 'BETA', 'BETA2', 'gamma' }, vim.api.nvim_buf_get_lines(a, 0, -1, false), 'buffer after the edit')
      eq(before + 1, vim.fn.undotree(a).seq_cur, 'one undo step')
      vim.api.nvim_buf_call(a, function()
        vim.cmd('silent undo')
      end)
      eq({ 'alpha', 'beta', 'gamma' }, vim.api.nvim_buf_get_lines(a, 0, -1, false), 'one undo restores it')
      vim.api.nvim_buf_call(a, function()
        vim.cmd('silent redo')
      end)
    end)

    t.step(driver.name .. ': a rejected write_file answers the call and writes nothing', function()
      local calls = {
        { id = 'call_write', name = prefix .. 'write_file', arguments = { path = ws .. '/new.txt', content = 'x\n' } },
      }
      local n = #log
      local answers = driver.turn(calls, decide_with({ [prefix .. 'write_file'] = { 'reject', 'not now' } }))
      answered(calls, answers)
      contains(answers[1].content, 'declined', 'rejection answer')
      if driver.kind == 'avante' then
        eq(true, answers[1].declined, 'avante marks it declined')
      end
      eq(n, #log, 'nothing reached the server')
      eq(0, vim.fn.filereadable(ws .. '/new.txt'), 'no file written')
    end)

    t.step(driver.name .. ': three calls at once are each answered by id', function()
      local calls = {
        { id = 'call_grep', name = prefix .. 'grep', arguments = { pattern = 'gamma' } },
        { id = 'call_glob', name = prefix .. 'glob', arguments = { pattern = '**/*.txt' } },
        { id = 'call_ls', name = prefix .. 'ls', arguments = vim.json.encode({ path = ws .. '/src' }) },
      }
      local answers = driver.turn(calls, decide_with({}))
      answered(calls, answers)
      contains(answers[1].content, 'b.txt', 'grep')
      contains(answers[2].content, 'notes.txt', 'glob')
      contains(answers[3].content, 'b.txt', 'ls (arguments as JSON text)')
    end)

    t.step(driver.name .. ': an erroring call is answered as an error', function()
      local calls = {
        { id = 'call_missing', name = prefix .. 'read_file', arguments = { path = ws .. '/missing.txt' } },
      }
      local answers = driver.turn(calls, decide_with({}))
      answered(calls, answers)
      contains(answers[1].content, 'missing.txt', 'error answer')
      if driver.kind == 'avante' then
        eq(true, answers[1].is_error, 'in the error slot')
      end
    end)

    if driver.kind == 'codecompanion' then
      t.step(driver.name .. ': cancelling at the prompt answers that call and the queued ones', function()
        local calls = {
          { id = 'call_w2', name = prefix .. 'write_file', arguments = { path = ws .. '/c.txt', content = 'c\n' } },
          { id = 'call_g2', name = prefix .. 'grep', arguments = { pattern = 'alpha' } },
        }
        local n = #log
        local answers = driver.turn(calls, decide_with({ [prefix .. 'write_file'] = { 'cancel' } }))
        answered(calls, answers)
        contains(answers[1].content, 'cancelled', 'the cancelled call')
        contains(answers[2].content, 'cancelled', 'the queued call')
        eq(n, #log, 'nothing reached the server')
        eq(0, vim.fn.filereadable(ws .. '/c.txt'), 'no file written')
      end)
    end

    if driver.can_stop then
      t.step(driver.name .. ': Stop while a call runs cancels the agentls call; the plugin answers once', function()
        local command = 'sleep 27.3125' -- unique: the process the call starts, outliving the wait below
        local calls = { { id = 'call_stop', name = prefix .. 'bash', arguments = { command = command } } }
        local real_select = vim.ui.select
        vim.ui.select = function(items, _, cb) -- agentls's own prompt, if bash asks: allow
          cb(items[1], 1)
        end
        local function running() -- the command or anything around it (a shell, a sandbox)
          return #vim.fn.systemlist({ 'pgrep', '-f', command }) > 0
        end
        local function started() -- the command itself
          return #vim.fn.systemlist({ 'pgrep', '-f', '^' .. command:gsub('%.', '\\.') .. '$' }) > 0
        end
        local stops = driver.stops and #driver.stops
        local ok, answers = pcall(driver.turn, calls, decide_with({}), started)
        vim.ui.select = real_select
        assert(ok, answers)
        if driver.kind == 'avante' then
          -- avante answers a cancelled call with its cancel token and stops: no tool result
          eq({}, answers, 'no tool result')
        else
          answered(calls, answers)
          contains(answers[1].content, 'cancelled', 'the stopped call')
        end
        t.wait_for('the server to end ' .. command, function()
          return not running()
        end, 10000)
        if stops then
          eq({ 'cancelled' }, vim.list_slice(driver.stops, stops + 1), 'the turn stopped once, cancelled')
        end
      end)
    end

    if driver.partial then
      t.step(driver.name .. ': a partial streaming call runs nothing', function()
        local n = #log
        local lines = vim.api.nvim_buf_get_lines(a, 0, -1, false)
        driver.partial({
          id = 'call_partial',
          name = prefix .. 'edit_file',
          arguments = { path = ws .. '/a.txt', old_string = 'alpha', new_string = 'ALP' },
        })
        vim.wait(200, function()
          return #log > n
        end, 10)
        eq(n, #log, 'no call reached the server')
        eq(lines, vim.api.nvim_buf_get_lines(a, 0, -1, false), 'the buffer is unchanged')
      end)
    end
  end)
  restore()
  if not ok then
    error(err, 0)
  end
end

return M
