-- What a person needs from a tool's JSON Schema: a starting argument object to edit (the input
-- prompt of :AgentlsCall is pre-filled with it) and a one-line summary of the arguments.

local json = require('agentls.json')

local M = {}

---@param schema table
---@return string? the first non-null type of the schema
local function type_of(schema)
  local t = schema.type
  if type(t) == 'table' then
    for _, v in ipairs(t) do
      if v ~= 'null' then
        return v
      end
    end
    return nil
  end
  return t
end

--- A placeholder value for a schema: its default, else its first enum value, else an empty value
--- of its type (objects get their own required properties).
---@param schema table?
---@param depth integer?
---@return any
function M.placeholder(schema, depth)
  depth = depth or 0
  if type(schema) ~= 'table' then
    return ''
  end
  if schema.default ~= nil and schema.default ~= vim.NIL then
    return schema.default
  end
  if type(schema.enum) == 'table' and schema.enum[1] ~= nil then
    return schema.enum[1]
  end
  if schema.const ~= nil then
    return schema.const
  end
  local t = type_of(schema)
  if t == 'integer' or t == 'number' then
    return 0
  elseif t == 'boolean' then
    return false
  elseif t == 'array' then
    return {}
  elseif t == 'object' then
    return depth < 4 and M.skeleton(schema, depth + 1) or vim.empty_dict()
  end
  return ''
end

--- The argument object a person starts from: every required property with a placeholder value.
---@param schema table?
---@param depth integer?
---@return table an object (vim.empty_dict() when nothing is required)
function M.skeleton(schema, depth)
  local out = vim.empty_dict()
  if type(schema) ~= 'table' then
    return out
  end
  local props = type(schema.properties) == 'table' and schema.properties or {}
  for _, name in ipairs(type(schema.required) == 'table' and schema.required or {}) do
    out[name] = M.placeholder(props[name], depth)
  end
  return out
end

--- The skeleton as one line of JSON with sorted keys (stable text), ready to be edited in an input
--- prompt.
---@param schema table?
---@return string
function M.prefill(schema)
  return json.encode(M.skeleton(schema))
end

--- "path, offset?, limit?": required properties first (in `required` order), then the optional
--- ones sorted, each optional one marked with '?'.
---@param schema table?
---@return string
function M.signature(schema)
  if type(schema) ~= 'table' or type(schema.properties) ~= 'table' then
    return ''
  end
  local required, seen, parts = schema.required or {}, {}, {}
  for _, name in ipairs(required) do
    if schema.properties[name] ~= nil then
      parts[#parts + 1] = name
      seen[name] = true
    end
  end
  local optional = {}
  for name in pairs(schema.properties) do
    if not seen[name] then
      optional[#optional + 1] = name
    end
  end
  table.sort(optional)
  for _, name in ipairs(optional) do
    parts[#parts + 1] = name .. '?'
  end
  return table.concat(parts, ', ')
end

return M
