-- A model of how codecompanion.nvim offers, resolves and runs a chat's tools, written from a
-- reading of its source (no code of it is here), for the adapter tests in CI:
--
--   v19: olimorris/codecompanion.nvim f1afd02537c68b3dd6e0d41d4adda5ef538e0473 (v19.22.0-9,
--        2026-08-08): interactions/chat/tools/init.lua (Tools.resolve, _resolve_and_prepare_tool,
--        execute), orchestrator.lua (setup_next_tool, approval choices, output dispatch, cancel),
--        runtime/runner.lua (run_tool), chat/tool_registry.lua (add_group, add_single_tool),
--        chat/init.lua (add_tool_output merging by tool call id)
--   v18: the same files at v18.7.0 (558518f8, 2026-02-18): Tools.resolve accepts a table callback,
--        commands get (tools, args, input, output_handler), outputs get (self, tools, cmd, data)
--
-- What the model keeps: config lookup by the function name the model called; resolution (path,
-- function callback, table callback on 18 only, inline table); a deep copy per call with name,
-- function_call, decoded args and config opts merged over the tool's; one tool at a time from a
-- queue; require_approval_before (boolean or function) asking the user (accept, reject with a
-- reason, cancel = this and every queued tool); commands in order with the output callback;
-- success/error/rejected/cancelled through the tool's output functions or codecompanion's default
-- text; every error of the turn collected in tools.stderr; Stop cancelling the running job.

local M = {}

local function fmt(...)
  return string.format(...)
end

--- codecompanion's own tools that the adapter must neither shadow nor touch (their config as in
--- the default config: a path, and for delete_file approval flags).
function M.default_tools(version)
  local src = version == 18 and 'callback' or 'path'
  return {
    groups = {
      files = { description = 'files', tools = { 'read_file', 'delete_file' }, opts = { collapse_tools = true } },
    },
    read_file = { [src] = 'interactions.chat.tools.builtin.read_file', opts = { require_approval_before = true } },
    delete_file = {
      [src] = 'interactions.chat.tools.builtin.delete_file',
      opts = { require_approval_before = true, require_cmd_approval = true, allowed_in_yolo_mode = false },
    },
    opts = { auto_submit_errors = true, auto_submit_success = true },
  }
end

-- Stand-ins for the built-in modules a path names: they must never run in these tests.
local builtin = {
  name = 'builtin',
  cmds = {
    function()
      error('a codecompanion built-in ran instead of an agentls tool')
    end,
  },
  schema = { type = 'function', ['function'] = { name = 'builtin', parameters = { type = 'object' } } },
}

local function resolve_path(path)
  if path:find('^interactions%.chat%.tools%.builtin%.') then
    return vim.deepcopy(builtin)
  end
  return nil
end

---@param version integer 18 or 19
---@param tool table a tools config entry
local function resolve(version, tool)
  if version >= 19 then
    if tool.extends then
      error('factories are not modelled')
    end
    if type(tool.path) == 'string' then
      return resolve_path(tool.path)
    end
    if type(tool.callback) == 'function' then
      return tool.callback()
    end
    return tool -- an inline tool table
  end
  local cb = tool.callback
  if type(cb) == 'table' then
    return cb
  elseif type(cb) == 'function' then
    return cb()
  end
  return resolve_path(cb)
end

--- A chat: the messages the next request is made of, as {role, tool_call_id, content}.
local function new_chat(bufnr)
  local chat = { messages = {}, bufnr = bufnr, buffer_context = { bufnr = bufnr } }
  function chat:add_tool_output(tool, for_llm, _)
    local id = tool.function_call.id
    for _, m in ipairs(self.messages) do
      if m.role == 'tool' and m.tool_call_id == id then
        m.content = m.content ~= '' and (m.content .. '\n\n' .. for_llm) or for_llm
        return
      end
    end
    table.insert(self.messages, { role = 'tool', tool_call_id = id, content = for_llm })
  end
  return chat
end

--- A chat session of codecompanion `version` over tools_config (the merged
--- interactions.chat.tools); user(tool_name, prompt) answers an approval prompt with 'accept',
--- 'reject' (and a reason) or 'cancel'.
---@param version integer
---@param tools_config table
---@param source_bufnr integer? the buffer the chat was opened from
function M.new(version, tools_config, source_bufnr)
  local session = { version = version, config = tools_config, chat = new_chat(source_bufnr) }

  --- What add_group(name) puts in the request: function name -> parameters, for every tool of the
  --- group that resolves.
  function session:offer_group(group)
    local offered = {}
    for _, name in ipairs(self.config.groups[group].tools) do
      local cfg = self.config[name]
      local ok, tool = pcall(resolve, self.version, cfg)
      if ok and type(tool) == 'table' and type(tool.schema) == 'table' then
        offered[tool.schema['function'].name] = tool.schema['function'].parameters
      end
    end
    return offered
  end

  --- Runs one model turn's tool calls ({id, name, arguments}) to the end; user decides approvals.
  --- Returns when codecompanion would fire ToolsFinished (or after `timeout_ms`).
  function session:execute(calls, user)
    local chat, version = self.chat, self.version
    local tools = { chat = chat, bufnr = chat.bufnr, stderr = {}, stdout = {}, status = 'success' }
    local queue = {}
    for _, call in ipairs(calls) do
      local fcall = { id = call.id, type = 'function', ['function'] = { name = call.name, arguments = call.arguments } }
      local cfg = self.config[call.name]
      local ok, resolved = pcall(resolve, version, cfg or {})
      if not cfg or not ok or not resolved then
        chat:add_tool_output({ name = call.name, function_call = fcall }, fmt('Tool `%s` not found.', call.name), '')
      else
        local tool = vim.deepcopy(resolved)
        tool.name = call.name
        tool.function_call = fcall
        local args = call.arguments
        if type(args) == 'string' then
          args = vim.json.decode(args ~= '' and args or '{}')
        end
        tool.args = args
        tool.opts = vim.tbl_extend('force', tool.opts or {}, cfg.opts or {})
        queue[#queue + 1] = tool
      end
    end

    local finished, cancelled = false, false
    local current, current_job

    local function call_output(tool, kind, ...)
      local fn = tool.output and tool.output[kind]
      if fn then
        return fn(tool, ...)
      end
    end

    local function output(tool, kind, cmd, extra)
      local has = tool.output and tool.output[kind]
      if kind == 'success' then
        local data = not vim.tbl_isempty(tool.tool_output) and tool.tool_output or nil
        if not has then
          return chat:add_tool_output(tool, fmt('Executed `%s`', tool.name))
        end
        if version >= 19 then
          return call_output(tool, kind, data, { cmd = cmd, tools = tools })
        end
        return call_output(tool, kind, tools, cmd, tool.tool_output or {})
      elseif kind == 'error' then
        if not has then
          return chat:add_tool_output(tool, fmt('Error calling `%s`', tool.name))
        end
        if version >= 19 then
          local stderr = not vim.tbl_isempty(tools.stderr) and tools.stderr or nil
          return call_output(tool, kind, stderr, { cmd = cmd, tools = tools })
        end
        return call_output(tool, kind, tools, cmd, tools.stderr)
      elseif kind == 'rejected' then
        if not has then
          return chat:add_tool_output(tool, fmt('\nThe user rejected the execution of the %s tool', tool.name))
        end
        if version >= 19 then
          return call_output(tool, kind, { cmd = cmd, tools = tools, opts = extra or {} })
        end
        return call_output(tool, kind, tools, cmd, extra or {})
      elseif kind == 'cancelled' then
        if not has then
          return chat:add_tool_output(tool, fmt('The user cancelled the execution of the %s tool', tool.name))
        end
        if version >= 19 then
          return call_output(tool, kind, { cmd = cmd, tools = tools })
        end
        return call_output(tool, kind, tools, cmd)
      end
    end

    local next_tool

    local function run_cmd(tool, index, input)
      local cmd = tool.cmds[index]
      local done = false
      local function handler(msg)
        if done or cancelled then
          return
        end
        done = true
        current_job = nil
        if msg.status == 'error' then
          tools.status = 'error'
          table.insert(tools.stderr, msg.data or 'An error occurred')
          local ok, err = pcall(output, tool, 'error', cmd)
          if not ok then
            chat:add_tool_output(tool, fmt('Internal error with `%s` tool: %s', tool.name, err))
          end
          return next_tool()
        end
        tools.status = 'success'
        if msg.data then
          table.insert(tools.stdout, msg.data)
          table.insert(tool.tool_output, msg.data)
        end
        local ok = pcall(output, tool, 'success', cmd)
        if not ok then
          chat:add_tool_output(tool, fmt('Internal error with `%s` tool', tool.name))
        end
        if index < #tool.cmds then
          return run_cmd(tool, index + 1, msg)
        end
        return next_tool()
      end
      tools.tool = tool
      local ok, out = pcall(function()
        if version >= 19 then
          return cmd(tools, tool.args, {
            input = input,
            output_cb = handler,
            register_job = function(job)
              current_job = job
            end,
          })
        end
        return cmd(tools, tool.args, input, handler)
      end)
      if not ok then
        done = true
        tools.status = 'error'
        table.insert(tools.stderr, out)
        pcall(output, tool, 'error', cmd)
        return next_tool()
      end
      if out ~= nil then
        handler(out)
      end
    end

    local function cancel_pending()
      while #queue > 0 do
        local t = table.remove(queue, 1)
        output(t, 'cancelled', t.cmds and t.cmds[1])
      end
    end

    function next_tool()
      if cancelled then
        return
      end
      if #queue == 0 then
        current = nil
        finished = true
        return
      end
      local tool = table.remove(queue, 1)
      current = tool
      tool.tool_output = {}
      local cmd = tool.cmds[1]
      local need = tool.opts.require_approval_before
      if type(need) == 'function' then
        need = need(tool, tools)
      end
      if not need then
        return run_cmd(tool, 1)
      end
      local prompt = tool.output and tool.output.prompt
        and tool.output.prompt(tool, version >= 19 and { tools = tools } or tools)
      if prompt == nil or prompt == '' then
        prompt = fmt('Run the %q tool?', tool.name)
      end
      local choice, reason = user(tool.name, prompt)
      if choice == 'accept' then
        return run_cmd(tool, 1)
      elseif choice == 'reject' then
        output(tool, 'rejected', cmd, { reason = reason })
        return next_tool()
      end
      output(tool, 'cancelled', cmd)
      cancel_pending()
      finished = true
    end

    --- The user's Stop while a tool runs (Orchestrator:cancel).
    function session:stop()
      if cancelled then
        return
      end
      cancelled = true
      if current_job then
        pcall(current_job.kill, current_job, 'sigterm')
        current_job = nil
      end
      if current then
        pcall(output, current, 'cancelled', current.cmds and current.cmds[1])
        current = nil
      end
      cancel_pending()
      finished = true
    end

    next_tool()
    function session:finished()
      return finished
    end
    return self
  end

  return session
end

return M
