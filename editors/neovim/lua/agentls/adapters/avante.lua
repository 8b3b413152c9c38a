-- agentls tools as avante.nvim custom tools (verified with avante.nvim a9334315 of 2026-08-22):
-- { name, description, param = { type = 'table', fields }, returns, func }. The JSON Schema of
-- each tool becomes avante's field list (objects keep their fields, arrays their items, enums
-- become choices), which avante's providers turn back into a JSON Schema.
--
-- func(input, opts) is what avante's llm_tools.process_tool_use calls: the result goes to
-- opts.on_complete(result, nil), a failure to on_complete(nil, error) (avante's error slot, sent
-- to the model as an error), and a call the user declines to on_complete(nil, 'User declined, ...')
-- (avante marks it declined). A call made while the model is still streaming its input
-- (opts.streaming) runs nothing: only the final input does. Tools that are not read-only ask
-- through avante's own confirmation (llm_tools.helpers.confirm, which honours
-- behaviour.auto_approve_tool_permissions) unless opted out. When the user cancels (avante
-- answers the call with its cancel token) the agentls call is cancelled and answers nothing. The
-- older signature func(input, on_log, on_complete) works too.
--
--   require('avante').setup({
--     custom_tools = function() return require('agentls.adapters.avante').tools() end,
--   })

local agentls = require('agentls')
local shared = require('agentls.adapters')

local M = {}

--- The User autocommand avante fires when the user cancels (llm.lua CANCEL_PATTERN).
M.cancel_pattern = 'AvanteLLMEscape'

---@param schema table
---@return string
local function type_of(schema)
  local t = schema.type
  if type(t) == 'table' then
    for _, v in ipairs(t) do
      if v ~= 'null' then
        return v
      end
    end
    return 'string'
  end
  return type(t) == 'string' and t or 'string'
end

local fields_of

--- One avante field for a property schema.
---@param name string
---@param schema table
---@param optional boolean
---@return table
local function field_of(name, schema, optional)
  local t = type_of(schema)
  local field = {
    name = name,
    description = type(schema.description) == 'string' and schema.description or name,
    type = t,
    optional = optional or nil,
  }
  if t == 'object' and type(schema.properties) == 'table' then
    field.fields = fields_of(schema)
  elseif t == 'array' and type(schema.items) == 'table' then
    field.items = field_of('items', schema.items, false)
  end
  if type(schema.enum) == 'table' then
    field.choices = schema.enum
  end
  return field
end

--- avante fields for an object schema: required properties first (in `required` order), then the
--- optional ones by name.
---@param schema table
---@return table[]
function fields_of(schema)
  local props = type(schema.properties) == 'table' and schema.properties or {}
  local fields, seen = {}, {}
  for _, name in ipairs(type(schema.required) == 'table' and schema.required or {}) do
    if type(props[name]) == 'table' and not seen[name] then
      fields[#fields + 1] = field_of(name, props[name], false)
      seen[name] = true
    end
  end
  local rest = {}
  for name, prop in pairs(props) do
    if not seen[name] and type(prop) == 'table' then
      rest[#rest + 1] = name
    end
  end
  table.sort(rest)
  for _, name in ipairs(rest) do
    fields[#fields + 1] = field_of(name, props[name], true)
  end
  return fields
end
M.fields = fields_of

--- Asks the user through avante's own confirmation, else vim.ui.select: cb(ok, reason).
---@param prompt string
---@param name string the tool name avante's auto_approve_tool_permissions list would hold
---@param session_ctx table?
---@param cb fun(ok: boolean, reason: string?)
local function confirm(prompt, name, session_ctx, cb)
  local ok, helpers = pcall(require, 'avante.llm_tools.helpers')
  if ok and type(helpers) == 'table' and type(helpers.confirm) == 'function' then
    helpers.confirm(prompt, cb, { focus = true }, session_ctx, name)
    return
  end
  vim.ui.select({ 'Run', 'Cancel' }, { prompt = prompt }, function(choice)
    cb(choice == 'Run', choice == nil and 'cancelled' or nil)
  end)
end

--- One avante custom tool for an agentls tool.
---@param tool agentls.Tool
---@param opts agentls.AdapterOpts?
---@return table
function M.tool(tool, opts)
  local approval = shared.needs_approval(tool, opts)
  local name = shared.model_name(tool, opts)
  return {
    name = name,
    description = tool.description,
    param = { type = 'table', fields = fields_of(tool.inputSchema) },
    returns = {
      { name = 'result', description = 'What the tool returned', type = 'string' },
      { name = 'error', description = 'Why the tool failed, when it did', type = 'string', optional = true },
    },
    func = function(input, opts_or_on_log, on_complete_arg)
      local fopts, on_log, on_complete = {}, nil, nil
      if type(opts_or_on_log) == 'table' then
        fopts = opts_or_on_log
        on_log, on_complete = fopts.on_log, fopts.on_complete
      else
        on_log, on_complete = opts_or_on_log, on_complete_arg
      end
      if fopts.streaming then
        return nil, nil -- a partial input the model is still writing: only the final one runs
      end
      local args = shared.arguments(input)
      local call_opts = { bufnr = opts and opts.bufnr }
      if type(on_log) == 'function' then
        on_log(shared.brief(tool.name, args))
      end
      local function answer(result, err)
        local text, is_error = shared.answer(result, err)
        if is_error then
          return nil, text
        end
        return text, nil
      end
      if type(on_complete) ~= 'function' then
        if approval then
          return nil, ('%s needs approval, which this avante cannot ask for'):format(name)
        end
        return answer(agentls.call_sync(tool.name, args, nil, call_opts))
      end
      local function go()
        local cancelled, au = false, nil
        local handle = agentls.call(tool.name, args, function(result, err)
          if au then
            pcall(vim.api.nvim_del_autocmd, au)
          end
          if not cancelled then
            on_complete(answer(result, err))
          end
        end, call_opts)
        -- avante's cancel (llm.cancel_inflight_request) answers the call itself, with its cancel
        -- token: stop the agentls call and answer nothing more, or avante would take a late
        -- result for a new one and send the next request after all
        au = vim.api.nvim_create_autocmd('User', {
          pattern = M.cancel_pattern,
          once = true,
          callback = function()
            cancelled = true
            handle.cancel()
          end,
        })
      end
      if not approval then
        go()
        return nil, nil -- the result comes through on_complete
      end
      confirm(('Run %s?'):format(shared.brief(name, args)), name, fopts.session_ctx, function(ok, reason)
        if ok then
          go()
        else
          on_complete(nil, ('User declined, reason: %s'):format(reason or 'none given'))
        end
      end)
      return nil, nil
    end,
  }
end

--- The list for avante's custom_tools (lists the tools now, starting agentls if needed). A name
--- one of avante's built-in tools has is left out (with a warning) instead of colliding with it.
---@param opts agentls.AdapterOpts?
---@return table[]
function M.tools(opts)
  local taken = {}
  local ok, llm_tools = pcall(require, 'avante.llm_tools')
  local builtin = ok and type(llm_tools) == 'table' and llm_tools._tools
  for _, t in ipairs(type(builtin) == 'table' and builtin or {}) do
    if type(t) == 'table' and t.name then
      taken[t.name] = true
    end
  end
  local out, skipped = {}, {}
  for _, t in ipairs(shared.offered(opts, 'avante')) do
    local tool = M.tool(t, opts)
    if taken[tool.name] then
      skipped[#skipped + 1] = tool.name
    else
      out[#out + 1] = tool
    end
  end
  if #skipped > 0 then
    vim.notify(
      ('agentls: avante already has %s; not offered (set a prefix)'):format(table.concat(skipped, ', ')),
      vim.log.levels.WARN
    )
  end
  return out
end

return M
