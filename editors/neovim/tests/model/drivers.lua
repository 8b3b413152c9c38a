-- Scenario drivers (see tests/scenario.lua) over the models of codecompanion 19 and 18 and of
-- avante, for CI. The adapters see the plugin modules they look at (codecompanion.config,
-- avante.llm_tools, avante.llm_tools.helpers) as the models' stand-ins while a driver is set up.

local cc_model = require('model.codecompanion')
local av_model = require('model.avante')

local M = {}

local function wait(what, cond)
  if not vim.wait(20000, cond, 5) then
    error('timed out waiting for ' .. what, 0)
  end
end

---@param version integer 18 or 19
function M.codecompanion(version)
  local session, cfg, defaults
  local d = { name = ('codecompanion model v%d'):format(version), kind = 'codecompanion' }
  function d.setup(opts, bufnr)
    defaults = cc_model.default_tools(version)
    package.loaded['codecompanion.config'] = { interactions = { chat = { tools = cc_model.default_tools(version) } } }
    local ok, ours = pcall(require('agentls.adapters.codecompanion').config, opts)
    package.loaded['codecompanion.config'] = nil
    assert(ok, ours)
    -- codecompanion deep-merges the user's tools config over its defaults
    cfg = vim.tbl_deep_extend('force', cc_model.default_tools(version), ours)
    session = cc_model.new(version, cfg, bufnr)
  end
  function d.offered()
    return session:offer_group('agentls')
  end
  function d.own_tools_intact()
    for _, name in ipairs({ 'read_file', 'delete_file' }) do
      if not vim.deep_equal(defaults[name], cfg[name]) then
        return name .. ' changed: ' .. vim.inspect(cfg[name])
      end
    end
    if not vim.deep_equal(defaults.groups.files, cfg.groups.files) then
      return 'the files group changed'
    end
  end
  d.can_stop = version >= 19 -- Orchestrator:cancel (the chat's Stop) came with 19
  function d.turn(calls, decide, stop_when)
    local first = #session.chat.messages
    session:execute(calls, decide)
    wait('the tools to finish', function()
      if stop_when and not session:finished() and stop_when() then
        session:stop()
      end
      return session:finished()
    end)
    local out = {}
    for i = first + 1, #session.chat.messages do
      local m = session.chat.messages[i]
      out[#out + 1] = { id = m.tool_call_id, content = m.content }
    end
    return out
  end
  return d
end

function M.avante()
  local tools, helpers
  local user_decide
  local d = { name = 'avante model', kind = 'avante' }
  function d.setup(opts, _)
    local behaviour = { auto_approve_tool_permissions = false }
    package.loaded['avante.llm_tools'] = { _tools = vim.tbl_map(function(n)
      return { name = n }
    end, av_model.builtin_names) }
    helpers = av_model.helpers(behaviour, function(_, tool_name)
      local choice, reason = user_decide(tool_name)
      return choice == 'accept', reason
    end)
    package.loaded['avante.llm_tools.helpers'] = helpers
    local ok, err = pcall(function()
      tools = av_model.get_tools(function()
        return require('agentls.adapters.avante').tools(opts)
      end)
    end)
    package.loaded['avante.llm_tools'] = nil
    assert(ok, err)
  end
  function d.offered()
    return av_model.offered(tools)
  end
  function d.own_tools_intact()
    local names = vim.tbl_map(function(t)
      return t.name
    end, tools)
    for _, n in ipairs(av_model.builtin_names) do
      if not vim.tbl_contains(names, n) then
        return n .. ' is gone'
      end
    end
    local seen = {}
    for _, n in ipairs(names) do
      if seen[n] then
        return n .. ' is offered twice'
      end
      seen[n] = true
    end
  end
  d.can_stop = true
  d.stops = {} -- why each turn's tool loop stopped
  function d.turn(calls, decide, stop_when)
    user_decide = decide
    local uses = vim.tbl_map(function(c)
      local input = c.arguments
      if type(input) == 'string' then
        input = vim.json.decode(input)
      end
      return { id = c.id, name = c.name, input = input }
    end, calls)
    local results, stopping
    av_model.stream(tools, {}, uses, {}, function(r, reason)
      results = results or r
      d.stops[#d.stops + 1] = reason
    end, helpers)
    wait('the tools to finish', function()
      if stop_when and not stopping and not results and stop_when() then
        stopping = true
        av_model.cancel(helpers)
      end
      return results ~= nil
    end)
    return vim.tbl_map(function(r)
      return { id = r.tool_use_id, content = r.content, is_error = r.is_error, declined = r.is_user_declined }
    end, results)
  end
  function d.partial(call)
    user_decide = function()
      return 'accept' -- a user who would approve it: only the adapter keeps the partial call out
    end
    local use = { id = call.id, name = call.name, input = call.arguments, state = 'generating' }
    av_model.stream(tools, { use }, {}, {}, function() end)
    -- and as avante passes it for an edit tool or one with support_streaming
    av_model.process_tool_use(tools, use, { streaming = true, on_complete = function() end })
  end
  function d.teardown()
    package.loaded['avante.llm_tools.helpers'] = nil
  end
  return d
end

return M
