-- A model of how avante.nvim offers and runs tools, written from a reading of its source (no code
-- of it is here), for the adapter tests in CI. Verified against yetone/avante.nvim
-- a9334315e05ac750985c7d0b391e360e36e0278e (2026-08-22):
--
--   llm_tools/init.lua   get_tools (built-ins + custom_tools, a function is called; every tool whose
--                        name is in disabled_tools is dropped), process_tool_use (tool found by
--                        name, else "This tool is not provided"; func(input, {session_ctx, on_log,
--                        set_store, on_complete, streaming, tool_use_id}); nil, nil means "async";
--                        a non-string result is JSON-encoded)
--   llm_tools/helpers.lua confirm(message, cb(ok, reason), opts, session_ctx, tool_name):
--                        session_ctx.always_yes and behaviour.auto_approve_tool_permissions
--                        (true or a list of names) approve without asking; is_cancelled and
--                        CANCEL_TOKEN
--   cancel               llm.cancel_inflight_request sets helpers.is_cancelled and fires User
--                        AvanteLLMEscape; process_tool_use's 100 ms timer then answers a running
--                        tool with the cancel token (once, resetting the flag), and so does the
--                        on_complete it hands the tool if the flag is still set; the tool loop
--                        stops on the cancel token (reason "cancelled") without a tool result
--   llm.lua              the tool loop of _stream: a tool use still "generating" goes to the tool
--                        (with streaming = true and a no-op on_complete) only when its name is an
--                        edit tool's (str_replace, edit_file, ...) or the tool has
--                        support_streaming; a finished one runs, one after another, and its result
--                        becomes {tool_use_id, content = error or result, is_error,
--                        is_user_declined = error starts with "User declined"}
--   utils/init.lua       llm_tool_param_fields_to_json_schema (what the provider sends)

local M = {}

--- avante's built-in tool names that a custom tool would collide with (a subset).
M.builtin_names = { 'bash', 'delete_file', 'edit_file', 'glob', 'grep', 'ls', 'read_file', 'view', 'write_to_file' }

--- The helpers module the adapter asks for confirmation through (avante.llm_tools.helpers).
---@param behaviour table {auto_approve_tool_permissions = boolean|string[]}
---@param user fun(message: string, tool_name: string?): boolean, string?
function M.helpers(behaviour, user)
  return {
    is_cancelled = false,
    CANCEL_TOKEN = '__CANCELLED__',
    confirm = function(message, callback, _, session_ctx, tool_name)
      callback = vim.schedule_wrap(callback)
      if session_ctx and session_ctx.always_yes then
        return callback(true)
      end
      local auto = behaviour.auto_approve_tool_permissions
      if auto == true or (type(auto) == 'table' and vim.tbl_contains(auto, tool_name)) then
        return callback(true)
      end
      callback(user(message, tool_name))
    end,
  }
end

--- The JSON Schema a provider sends for an avante field list.
---@param fields table[]
---@return table properties, string[] required
function M.fields_to_schema(fields)
  local properties, required = {}, {}
  for _, f in ipairs(fields) do
    if f.type == 'object' and f.fields then
      local p, r = M.fields_to_schema(f.fields)
      properties[f.name] = { type = f.type, description = f.description, properties = p, required = r }
    elseif f.type == 'array' and f.items then
      local p = M.fields_to_schema({ f.items })
      local _, item = next(p)
      properties[f.name] = { type = f.type, description = f.description, items = item }
    else
      properties[f.name] = { type = f.type, description = f.description, enum = f.choices }
    end
    if not f.optional then
      required[#required + 1] = f.name
    end
  end
  return properties, required
end

--- The tools offered: built-ins (stand-ins that fail if run) plus custom_tools, minus disabled.
---@param custom_tools table[]|fun(): table[]
---@param disabled string[]?
function M.get_tools(custom_tools, disabled)
  if type(custom_tools) == 'function' then
    custom_tools = custom_tools()
  end
  local all = {}
  for _, name in ipairs(M.builtin_names) do
    all[#all + 1] = {
      name = name,
      func = function()
        error('an avante built-in ran instead of an agentls tool: ' .. name)
      end,
      param = { type = 'table', fields = {} },
    }
  end
  vim.list_extend(all, custom_tools)
  return vim.tbl_filter(function(t)
    return not vim.tbl_contains(disabled or {}, t.name)
  end, all)
end

--- name -> parameters, as the provider's transform_tool sends them.
function M.offered(tools)
  local out = {}
  for _, t in ipairs(tools) do
    local props, required = M.fields_to_schema(t.param.fields)
    out[t.name] = { type = 'object', properties = props, required = required, additionalProperties = false }
  end
  return out
end

local function is_edit_tool_use(use)
  local editor = use.name == 'str_replace_editor' or use.name == 'str_replace_based_edit_tool'
  return use.name == 'str_replace' or use.name == 'edit_file' or (editor and use.input.command == 'str_replace')
end

--- The user's cancel (llm.cancel_inflight_request).
function M.cancel(helpers)
  helpers.is_cancelled = true
  vim.api.nvim_exec_autocmds('User', { pattern = 'AvanteLLMEscape' })
end

--- process_tool_use: returns (result, err) when the tool answered at once, else nothing (then
--- on_complete gets it). opts.helpers is the helpers module (for the cancel flag).
function M.process_tool_use(tools, use, opts)
  local helpers = opts.helpers or { is_cancelled = false }
  if helpers.is_cancelled then
    if opts.on_complete then
      return opts.on_complete(nil, helpers.CANCEL_TOKEN)
    end
    return nil, helpers.CANCEL_TOKEN
  end
  local tool
  for _, t in ipairs(tools) do
    if t.name == use.name then
      tool = t
    end
  end
  if not tool then
    return nil, 'This tool is not provided: ' .. vim.inspect(use.name)
  end
  local timer
  if opts.on_complete then
    timer = vim.uv.new_timer()
    timer:start(100, 100, vim.schedule_wrap(function()
      if helpers.is_cancelled and not timer:is_closing() then
        timer:stop()
        timer:close()
        helpers.is_cancelled = false
        opts.on_complete(nil, helpers.CANCEL_TOKEN)
      end
    end))
  end
  local function handle(result, err)
    if timer and not timer:is_closing() then
      timer:stop()
      timer:close()
    end
    if type(result) ~= 'string' and result ~= nil then
      result = vim.json.encode(result)
    end
    return result, err
  end
  local result, err = tool.func(use.input, {
    session_ctx = opts.session_ctx or {},
    on_log = function() end,
    set_store = function() end,
    on_complete = function(r, e)
      if helpers.is_cancelled then
        helpers.is_cancelled = false
        if opts.on_complete then
          opts.on_complete(nil, helpers.CANCEL_TOKEN)
        end
        return
      end
      if opts.on_complete then
        opts.on_complete(handle(r, e))
      end
    end,
    streaming = opts.streaming,
    tool_use_id = use.id,
  })
  if result == nil and err == nil and opts.on_complete then
    return
  end
  return handle(result, err)
end

--- The _stream tool loop for one response: partial uses first (as the stream delivers them),
--- then every finished use in order. done(tool_results, stop_reason) when the last has answered
--- ('tool_use': the next request would go out) or a cancel token came ('cancelled').
---@param tools table[]
---@param partials table[] {id, name, input} still generating
---@param uses table[] {id, name, input} finished
---@param session_ctx table
---@param done fun(results: table[], reason: string)
---@param helpers table? the helpers module (cancel flag and token)
function M.stream(tools, partials, uses, session_ctx, done, helpers)
  for _, use in ipairs(partials) do
    local support_streaming = false
    for _, t in ipairs(tools) do
      if t.name == use.name then
        support_streaming = t.support_streaming == true
      end
    end
    if (is_edit_tool_use(use) or support_streaming) and type(use.input) == 'table' then
      M.process_tool_use(tools, use, {
        session_ctx = session_ctx,
        streaming = true,
        on_complete = function() end,
        helpers = helpers,
      })
    end
  end
  local results = {}
  local function run(i)
    local use = uses[i]
    if not use then
      return done(results, 'tool_use')
    end
    local function handle(result, err)
      if helpers and err == helpers.CANCEL_TOKEN then
        return done(results, 'cancelled')
      end
      results[#results + 1] = {
        tool_use_id = use.id,
        content = err ~= nil and err or result,
        is_error = err ~= nil,
        is_user_declined = err ~= nil and err:match('^User declined') ~= nil,
      }
      run(i + 1)
    end
    local result, err =
      M.process_tool_use(tools, use, { session_ctx = session_ctx, on_complete = handle, helpers = helpers })
    if result ~= nil or err ~= nil then
      handle(result, err)
    end
  end
  run(1)
end

return M
