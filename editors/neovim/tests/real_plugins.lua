-- The scripted agent session of tests/scenario.lua inside real plugin checkouts (see
-- real-plugins.sh, which runs this):
--
--   AGENTLS_BIN=/path/to/agentls nvim --clean --headless -l tests/real_plugins.lua DIR...
--
-- DIR... are checkouts of codecompanion.nvim, avante.nvim and what they need (plenary.nvim,
-- nui.nvim); each plugin found among them is put on 'runtimepath' and driven through its own chat
-- and tool runner, with a scripted model in place of the LLM:
--
--   codecompanion  a real chat (require('codecompanion').chat()) with `@{agentls}` parsed by its
--                  own tools, the model's response given to chat:done(), approvals answered
--                  through the keymaps of its approval prompt (19) or its confirm dialog (18),
--                  the answers read from chat.messages
--   avante         avante's own llm._stream loop: a scripted provider stream (llm.curl) that
--                  delivers the tool uses, llm_tools.get_tools with our custom_tools, approvals
--                  through helpers.confirm's inline buttons; generate_prompts is replaced because
--                  it renders avante's templates with a native library (avante_templates) that
--                  a plain checkout does not have
--
-- A lazy.nvim checkout among DIR... (run on its own) checks the documented lazy.nvim spec
-- (doc/agentls.txt *agentls-lazy*) for real: lazy.nvim clones this repository (from here, not
-- GitHub), runs the build (go build) and loads the plugin from editors/neovim.
--
-- Prints one line per step, then "N passed, N failed"; exits non-zero when a step failed.

local script = vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
local plugin_root = vim.fs.dirname(vim.fs.dirname(script))
vim.opt.runtimepath:prepend(plugin_root)
package.path = plugin_root .. '/tests/?.lua;' .. package.path
vim.o.swapfile = false
vim.o.more = false
-- codecompanion's chat needs the markdown parser Neovim ships; a Neovim unpacked from Debian
-- packages keeps its parsers in /usr/lib/nvim, which it finds only when installed there
if #vim.api.nvim_get_runtime_file('parser/markdown.so', false) == 0 then
  local lib = vim.fs.normalize(vim.env.VIMRUNTIME .. '/../../../lib/nvim')
  if vim.fn.isdirectory(lib .. '/parser') == 1 then
    vim.opt.runtimepath:append(lib)
  end
end

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

local counts = { passed = 0, failed = 0 }

local function step(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    counts.passed = counts.passed + 1
    out('ok    ' .. name)
  else
    counts.failed = counts.failed + 1
    out(('FAIL  %s\n      %s'):format(name, (tostring(err):gsub('\n', '\n      '))))
  end
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
local function wait_for(what, cond, timeout_ms)
  if not vim.wait(timeout_ms or 20000, cond, 5) then
    error('timed out waiting for ' .. what, 2)
  end
end

local tmp_dirs = {}
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
local function wait_attached(bufnr)
  wait_for('agentls to attach and initialize', function()
    local c = vim.lsp.get_clients({ bufnr = bufnr, name = 'agentls' })[1]
    return c ~= nil and c.initialized == true
  end)
end

--- A checkout's version: git describe (short), or with full = true "describe (commit, date)".
local function describe(dir, full)
  local function git(...)
    local r = vim.system({ 'git', '-C', dir, ... }, { text = true }):wait()
    return r.code == 0 and vim.trim(r.stdout) or '?'
  end
  local d = git('describe', '--tags', '--always')
  if not full then
    return d
  end
  return ('%s (%s, %s)'):format(d, git('rev-parse', 'HEAD'), git('log', '-1', '--format=%cd', '--date=short'))
end

------------------------------------------------------------------------------------------------
-- codecompanion

local function codecompanion_driver(dir)
  local d = { kind = 'codecompanion', name = 'codecompanion' }
  local chat, v19
  local decide -- the scripted user's answer to an approval

  --- The chat's keymap whose description is label (the approval prompt's choices, 19).
  local function press(label)
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(chat.bufnr, 'n')) do
      if m.desc == label and m.callback then
        return m.callback()
      end
    end
    error('no approval choice ' .. label .. ' in the chat buffer')
  end

  function d.setup(opts, bufnr)
    vim.env.OPENAI_API_KEY = vim.env.OPENAI_API_KEY or 'unused: no request is sent'
    local ours = require('agentls.adapters.codecompanion').config(opts)
    ours.opts = { auto_submit_errors = false, auto_submit_success = false } -- no next request
    require('codecompanion').setup({
      interactions = { chat = { adapter = 'openai', tools = ours } },
      opts = { log_level = 'ERROR' },
    })
    v19 = pcall(require, 'codecompanion.interactions.chat.helpers.approval_prompt')
    local labels = v19 and require('codecompanion.interactions.chat.tools.labels')
    if v19 then
      vim.api.nvim_create_autocmd('User', {
        pattern = 'CodeCompanionToolApprovalRequested',
        callback = function(ev)
          local choice, reason = decide(ev.data.name)
          vim.schedule(function()
            local real_input = vim.ui.input
            vim.ui.input = function(_, cb) -- the reason codecompanion asks for after Reject
              vim.ui.input = real_input
              cb(reason)
            end
            press(({ accept = labels.accept, reject = labels.reject, cancel = labels.cancel })[choice])
          end)
        end,
      })
    else
      -- 18 asks with a confirm dialog: 1 Allow always, 2 Allow once, 3 Reject, 4 Cancel
      local ui = require('codecompanion.utils.ui')
      ui.confirm = function(prompt)
        -- the tool is named in our prompt ("Run `agentls_x` {...}?") or codecompanion's default
        local name = prompt:match('`([%w_]+)`') or prompt:match('"([%w_]+)"') or prompt
        local choice, reason = decide(name)
        vim.ui.input = function(_, cb)
          cb(reason)
        end
        return ({ accept = 2, reject = 3, cancel = 4 })[choice]
      end
    end
    vim.api.nvim_set_current_buf(bufnr)
    chat = require('codecompanion').chat()
    truthy(chat and chat.bufnr, 'a chat')
    chat.buffer_context.bufnr = bufnr
    d.can_stop = v19 -- Orchestrator:cancel (the chat's Stop) came with 19
    -- what the user's `@{agentls}` does when the message is sent
    truthy(chat.tools:parse(chat, { content = '@{agentls} please' }), '@{agentls} is a known group')
    d.name = 'codecompanion ' .. describe(dir)
  end

  function d.offered()
    local offered = {}
    for _, schema in pairs(chat.tool_registry.schemas) do
      offered[schema['function'].name] = schema['function'].parameters
    end
    return offered
  end

  function d.own_tools_intact()
    local cfg = require('codecompanion.config').interactions.chat.tools
    for _, name in ipairs({ 'read_file', 'delete_file' }) do
      local t = cfg[name]
      if not t or (t.path == nil and type(t.callback) ~= 'string') then
        return name .. ' lost its module: ' .. vim.inspect(t)
      end
      if not (t.opts and t.opts.require_approval_before == true) then
        return name .. ' no longer asks for approval: ' .. vim.inspect(t.opts)
      end
    end
    if cfg.groups.files and vim.tbl_contains(cfg.groups.files.tools, 'agentls_read_file') then
      return 'the files group changed'
    end
  end

  function d.turn(calls, dec, stop_when)
    decide = dec
    local first = #chat.messages
    local finished = false
    local au = vim.api.nvim_create_autocmd('User', {
      pattern = 'CodeCompanionToolsFinished',
      callback = function(ev)
        if ev.data and ev.data.bufnr == chat.bufnr then
          finished = true
        end
      end,
    })
    local tool_calls = {}
    for i, c in ipairs(calls) do
      tool_calls[i] = {
        id = c.id,
        type = 'function',
        ['function'] = {
          name = c.name,
          arguments = type(c.arguments) == 'string' and c.arguments or vim.json.encode(c.arguments),
        },
      }
    end
    chat.status = 'success'
    chat:done({}, nil, tool_calls) -- the model's response: these tool calls, no text
    wait_for('codecompanion to finish the tools', function()
      if stop_when and not finished and stop_when() then
        chat:stop() -- the user's Stop (keymaps.stop)
        finished = true
      end
      return finished
    end)
    vim.api.nvim_del_autocmd(au)
    local answers = {}
    for i = first + 1, #chat.messages do
      local m = chat.messages[i]
      if m.role == 'tool' then
        answers[#answers + 1] = { id = m.tools and m.tools.call_id or m.tool_call_id, content = m.content }
      end
    end
    return answers
  end

  return d
end

------------------------------------------------------------------------------------------------
-- avante

local function avante_driver(dir)
  local d = { kind = 'avante', name = 'avante' }
  local LLM, LLMTools, sidebar
  local decide
  local script -- the provider's next response: { partials, uses }

  function d.setup(opts, _)
    require('avante.config').setup({
      provider = 'openai',
      mode = 'legacy', -- no attempt_completion reminders after the turn
      behaviour = { auto_approve_tool_permissions = false, confirmation_ui_style = 'inline_buttons' },
      custom_tools = function()
        return require('agentls.adapters.avante').tools(opts)
      end,
    })
    LLM = require('avante.llm')
    LLMTools = require('avante.llm_tools')
    local History = require('avante.history')
    -- the sidebar the inline confirmation buttons go to; the scripted user presses one
    sidebar = {
      update_content = function() end,
    }
    require('avante').get = function()
      return sidebar
    end
    -- the inline buttons do not name the tool: note the name confirm() is given, then let it run
    local helpers = require('avante.llm_tools.helpers')
    local confirm = helpers.confirm
    helpers.confirm = function(message, cb, confirm_opts, session_ctx, tool_name)
      sidebar.agentls_tool = tool_name
      return confirm(message, cb, confirm_opts, session_ctx, tool_name)
    end
    LLM.generate_prompts = function(o)
      return { system_prompt = '', messages = {}, tools = o.tools }
    end
    local function use_message(u, state)
      local content = { type = 'tool_use', id = u.id, name = u.name, input = u.input }
      return History.Message:new('assistant', content, { state = state })
    end
    -- the provider stream: tool uses as the model sends them, then stop "tool_use"; the request
    -- after the tool results ends the turn
    LLM.curl = function(o)
      local h = o.handler_opts
      local s = script
      script = nil
      vim.schedule(function()
        if not s then
          return h.on_stop({ reason = 'complete' })
        end
        local msgs = {}
        for _, u in ipairs(s.partials or {}) do
          msgs[#msgs + 1] = use_message(u, 'generating')
        end
        if #msgs > 0 then
          h.on_messages_add(msgs)
          h.on_stop({ reason = 'tool_use', streaming_tool_use = true })
          msgs = {}
        end
        for _, u in ipairs(s.uses or {}) do
          msgs[#msgs + 1] = use_message(u, 'generated')
        end
        if #msgs > 0 then
          h.on_messages_add(msgs)
          h.on_stop({ reason = 'tool_use' })
        else
          h.on_stop({ reason = 'complete' })
        end
      end)
      return {}
    end
    d.name = 'avante ' .. describe(dir)
  end

  local function tools()
    return LLMTools.get_tools('', {})
  end

  function d.offered()
    local provider = require('avante.providers.openai')
    local offered = {}
    for _, t in ipairs(tools()) do
      local wire = provider:transform_tool(t)
      offered[wire['function'].name] = wire['function'].parameters
    end
    return offered
  end

  function d.own_tools_intact()
    local Config = require('avante.config')
    local custom = Config.custom_tools
    Config.custom_tools = {}
    local builtin = vim.tbl_map(function(t)
      return t.name
    end, tools())
    Config.custom_tools = custom
    local names, seen = {}, {}
    for _, t in ipairs(tools()) do
      if seen[t.name] then
        return t.name .. ' is offered twice'
      end
      seen[t.name] = true
      names[#names + 1] = t.name
    end
    for _, n in ipairs(builtin) do
      if not seen[n] then
        return 'avante lost its ' .. n
      end
    end
    if #names ~= #builtin + #custom() then
      return ('%d built-in + %d agentls tools, but %d offered'):format(#builtin, #custom(), #names)
    end
  end

  d.can_stop = true
  d.stops = {} -- why each turn's tool loop stopped

  --- Runs one response through llm._stream; returns the history it produced. stop_when() true:
  --- the user cancels (llm.cancel_inflight_request, what avante's sidebar does).
  local function stream(s, stop_when)
    local history = {}
    local stopped, stopping = false, false
    script = s
    LLM._stream({
      provider = require('avante.providers').openai,
      tools = tools(),
      session_ctx = {},
      get_history_messages = function()
        return history
      end,
      on_messages_add = function(msgs)
        for _, m in ipairs(msgs) do
          local found
          for i, h in ipairs(history) do
            if h.uuid == m.uuid then
              history[i], found = m, true
            end
          end
          if not found then
            history[#history + 1] = m
          end
        end
      end,
      on_start = function() end,
      on_chunk = function() end,
      on_state_change = function() end,
      on_tool_log = function() end,
      on_stop = function(o)
        stopped = true
        d.stops[#d.stops + 1] = o and o.reason
      end,
    })
    wait_for('avante to finish the turn', function()
      if stop_when and not stopping and not stopped and stop_when() then
        stopping = true
        LLM.cancel_inflight_request()
      end
      if sidebar.permission_handler then
        local handler = sidebar.permission_handler
        local choice = decide(sidebar.agentls_tool)
        handler(choice == 'accept' and 'allow_once' or 'reject_once')
      end
      return stopped
    end)
    return history
  end

  function d.turn(calls, dec, stop_when)
    decide = dec
    local uses = {}
    for _, c in ipairs(calls) do
      local input = c.arguments
      if type(input) == 'string' then
        input = vim.json.decode(input)
      end
      uses[#uses + 1] = { id = c.id, name = c.name, input = input }
    end
    local history = stream({ uses = uses }, stop_when)
    local answers = {}
    for _, m in ipairs(history) do
      local content = m.message and m.message.content
      if type(content) == 'table' then
        for _, item in ipairs(content) do
          if item.type == 'tool_result' then
            answers[#answers + 1] = {
              id = item.tool_use_id,
              content = item.content,
              is_error = item.is_error,
              declined = item.is_user_declined,
            }
          end
        end
      end
    end
    return answers
  end

  function d.partial(call)
    stream({ partials = { { id = call.id, name = call.name, input = call.arguments } } })
    -- and as avante hands it to a tool it streams to (an edit tool's name, support_streaming)
    LLMTools.process_tool_use(tools(), { id = call.id, name = call.name, input = call.arguments }, {
      session_ctx = {},
      streaming = true,
      on_complete = function() end,
    })
    -- a user who would approve it: only the adapter keeps the partial call out
    vim.wait(100, function()
      return sidebar.permission_handler ~= nil
    end, 5)
    if sidebar.permission_handler then
      sidebar.permission_handler('allow_once')
    end
  end

  return d
end

------------------------------------------------------------------------------------------------
-- lazy.nvim: the documented spec installs this repository (cloned from its own checkout instead
-- of GitHub), builds the binary and loads the plugin

---@param dir string the lazy.nvim checkout
---@param others table<string, string> other checkouts given: codecompanion, plenary
local function lazy_check(dir, others)
  local repo = vim.fs.dirname(vim.fs.dirname(plugin_root))
  local text = table.concat(vim.fn.readfile(plugin_root .. '/doc/agentls.txt'), '\n')
  local from = assert(text:find('*agentls-lazy*', 1, true))
  local code = assert(text:sub(from):match('>lua\n(.-)\n<\n'), 'the spec in doc/agentls.txt')
  local spec = assert(loadstring('return ' .. code))()
  local specs = { spec }
  local root = vim.fs.normalize(vim.fn.resolve(vim.fn.tempname()))
  tmp_dirs[#tmp_dirs + 1] = root
  -- lazy.nvim clones 'owner/name' from git.url_format: here a folder of links to the checkouts
  -- given (and to this repository, whose committed state is what gets installed), not GitHub
  local mirror = root .. '/mirror'
  local function mirrored(name, target)
    vim.fn.mkdir(vim.fs.dirname(mirror .. '/' .. name), 'p')
    assert(vim.uv.fs_symlink(target, mirror .. '/' .. name))
  end
  mirrored('agentls/agentls', repo)
  -- with codecompanion (0.11+): the documented codecompanion spec, from the checkouts given
  local cc = vim.fn.has('nvim-0.11') == 1 and others.codecompanion and others.plenary
  if cc then
    local from_cc = assert(text:find('*agentls-codecompanion*', 1, true))
    local cc_code
    for block in text:sub(from_cc):gmatch('>lua\n(.-)\n<\n') do
      if block:find("'olimorris/codecompanion.nvim'", 1, true) then
        cc_code = cc_code or block
      end
    end
    specs[#specs + 1] = assert(loadstring('return ' .. assert(cc_code, 'the codecompanion lazy.nvim spec')))()
    mirrored('olimorris/codecompanion.nvim', others.codecompanion)
    mirrored('nvim-lua/plenary.nvim', others.plenary)
  end
  local name = 'lazy.nvim ' .. describe(dir)
  step(name .. ': installs, builds and loads the documented spec', function()
    require('lazy').setup(specs, {
      root = root .. '/plugins',
      lockfile = root .. '/lazy-lock.json',
      git = { url_format = mirror .. '/%s' },
      install = { missing = true },
      checker = { enabled = false },
      change_detection = { enabled = false },
      rocks = { enabled = false },
      performance = { rtp = { reset = false } },
      headless = { process = false, log = false, task = true, colors = false },
    })
    local plugin = root .. '/plugins/agentls'
    local found = vim.api.nvim_get_runtime_file('lua/agentls/init.lua', true)
    eq({ plugin .. '/editors/neovim/lua/agentls/init.lua' }, found, 'lua/agentls on the runtimepath')
    eq(plugin .. '/editors/neovim', require('agentls.config').plugin_dir(), 'loaded from there')
    truthy(vim.fn.executable(plugin .. '/editors/neovim/bin/agentls') == 1, 'the build made bin/agentls')
    truthy(vim.api.nvim_get_commands({}).AgentlsTools, 'the commands')
    truthy(vim.tbl_contains(vim.fn.getcompletion('agentls-lazy', 'help'), 'agentls-lazy'), ':help agentls')
    eq(plugin .. '/editors/neovim/bin/agentls', require('agentls.lsp').cmd()[1], 'the built server is used')
    local ws = workspace({ ['hello.txt'] = 'hello from lazy\n' })
    vim.cmd('edit ' .. ws .. '/hello.txt')
    wait_attached(vim.api.nvim_get_current_buf())
    local r = require('agentls').call_sync('read_file', { path = 'hello.txt' })
    contains(r and r.content, 'hello from lazy', 'read_file through the built server')
  end)
  if cc then
    step(name .. ': with codecompanion ' .. describe(others.codecompanion) .. ', the documented spec', function()
      local tools = require('codecompanion.config').interactions.chat.tools
      truthy(tools.agentls_read_file and tools.agentls_edit_file, 'agentls tools in the codecompanion config')
      eq('function', type(tools.agentls_read_file.callback), 'as function callbacks')
      truthy(vim.tbl_contains(tools.groups.agentls.tools, 'agentls_edit_file'), 'the agentls group')
      truthy(tools.read_file.path, "codecompanion's own read_file kept its module")
    end)
  end
end

------------------------------------------------------------------------------------------------

local bin = os.getenv('AGENTLS_BIN')
if not bin or vim.fn.executable(bin) ~= 1 then
  out('real_plugins.lua: AGENTLS_BIN must name the agentls binary')
  os.exit(2)
end
local dirs = _G.arg or {}
local found = {}
for _, dir in ipairs(dirs) do
  dir = vim.fs.normalize(vim.fn.fnamemodify(dir, ':p')):gsub('/$', '')
  vim.opt.runtimepath:append(dir)
  for _, name in ipairs({ 'codecompanion', 'avante', 'lazy', 'plenary' }) do
    if vim.fn.isdirectory(dir .. '/lua/' .. name) == 1 then
      found[name] = found[name] or dir -- the first given
    end
  end
  if vim.fn.isdirectory(dir .. '/lua/plenary') == 1 then
    out('using plenary.nvim ' .. describe(dir, true))
  elseif vim.fn.isdirectory(dir .. '/lua/nui') == 1 then
    out('using nui.nvim ' .. describe(dir, true))
  end
end
if not found.codecompanion and not found.avante and not found.lazy then
  out('real_plugins.lua: no codecompanion.nvim, avante.nvim or lazy.nvim checkout among: ' .. table.concat(dirs, ' '))
  os.exit(2)
end
if found.lazy then
  -- lazy.nvim alone on the runtimepath: the specs must find everything themselves
  for _, dir in ipairs(vim.list_extend({ plugin_root }, dirs)) do
    local d = vim.fs.normalize(vim.fn.fnamemodify(dir, ':p')):gsub('/$', '')
    if d ~= found.lazy then
      vim.opt.runtimepath:remove(d)
    end
  end
  lazy_check(found.lazy, found)
  found = {}
end

if vim.fn.has('nvim-0.11') == 0 and (found.codecompanion or found.avante) then
  -- codecompanion 18 and 19 and avante refuse to load on older Neovim
  out(('skip  every plugin: codecompanion.nvim and avante.nvim need Neovim 0.11 or later (this is %s)'):format(
    tostring(vim.version())
  ))
  os.exit(0)
end

if found.codecompanion or found.avante then
  require('agentls').setup({ cmd = { bin, 'serve', '--stdio' } })
end
local t = {
  step = step,
  eq = eq,
  truthy = truthy,
  contains = contains,
  wait_for = wait_for,
  workspace = workspace,
  wait_attached = wait_attached,
}
for _, make in ipairs({ { 'codecompanion', codecompanion_driver }, { 'avante', avante_driver } }) do
  local dir = found[make[1]]
  if dir then
    local driver = make[2](dir)
    out(('-- %s %s: %s'):format(make[1], describe(dir, true), dir))
    local ok, err = pcall(require('scenario').run, driver, t)
    if not ok then
      step(driver.name .. ': set-up', function()
        error(err, 0)
      end)
    end
    vim.cmd('silent! %bwipeout!')
  end
end

for _, c in ipairs(vim.lsp.get_clients({ name = 'agentls' })) do
  if vim.fn.has('nvim-0.11') == 1 then
    c:stop(true)
  else
    c.stop(true)
  end
end
for _, dir in ipairs(tmp_dirs) do
  vim.fn.delete(dir, 'rf')
end
out(('%d passed, %d failed'):format(counts.passed, counts.failed))
os.exit(counts.failed > 0 and 1 or 0)
