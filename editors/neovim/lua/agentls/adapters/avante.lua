-- agentls tools as avante.nvim custom tools: { name, description, param = { type = 'table',
-- fields }, returns, func }. The JSON Schema of each tool becomes avante's field list (objects
-- keep their fields, arrays their items, enums become choices). func calls the tool through
-- require('agentls').call and works with both avante signatures:
--   func(input, { on_log, on_complete, ... })   and   func(input, on_log, on_complete, ...)
--
--   require('avante').setup({
--     custom_tools = function() return require('agentls.adapters.avante').tools() end,
--   })

local agentls = require('agentls')
local shared = require('agentls.adapters')

local M = {}

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

--- One avante custom tool for an agentls tool.
---@param tool agentls.Tool
---@param opts agentls.AdapterOpts?
---@return table
function M.tool(tool, opts)
  local approval = shared.needs_approval(tool, opts)
  return {
    name = shared.model_name(tool, opts),
    description = tool.description,
    param = { type = 'table', fields = fields_of(tool.inputSchema) },
    returns = {
      { name = 'result', description = 'What the tool returned', type = 'string' },
      { name = 'error', description = 'Why the tool failed, when it did', type = 'string', optional = true },
    },
    func = function(input, opts_or_on_log, on_complete_arg)
      local on_log, on_complete
      if type(opts_or_on_log) == 'table' then
        on_log, on_complete = opts_or_on_log.on_log, opts_or_on_log.on_complete
      else
        on_log, on_complete = opts_or_on_log, on_complete_arg
      end
      local args = shared.arguments(input)
      if on_log then
        on_log(('agentls %s'):format(tool.name))
      end
      local function run(done)
        if not on_complete then
          local result, err = agentls.call_sync(tool.name, args)
          return done(result, err)
        end
        agentls.call(tool.name, args, done)
      end
      local function answer(result, err)
        if not result then
          return nil, 'agentls: ' .. tostring(err)
        elseif result.isError then
          return nil, result.content
        end
        return result.content, nil
      end
      if not on_complete then
        return run(answer)
      end
      local function go()
        run(function(result, err)
          on_complete(answer(result, err))
        end)
      end
      if approval then
        vim.ui.select({ 'Run', 'Cancel' }, { prompt = ('agentls: run %s?'):format(tool.name) }, function(choice)
          if choice == 'Run' then
            go()
          else
            on_complete(nil, 'the user declined to run ' .. tool.name)
          end
        end)
      else
        go()
      end
      -- nil, nil: the result comes through on_complete
    end,
  }
end

--- The list for avante's custom_tools (lists the tools now, starting agentls if needed).
---@param opts agentls.AdapterOpts?
---@return table[]
function M.tools(opts)
  local out = {}
  for _, t in ipairs(shared.selected(opts)) do
    out[#out + 1] = M.tool(t, opts)
  end
  return out
end

return M
