-- JSON text for people: objects with sorted keys, optionally indented. vim.json.encode is right
-- for the wire but orders keys by hash and (on 0.10) escapes every '/'; what a person reads in a
-- scratch buffer or edits in a prompt should be stable and plain.

local M = {}

local empty_dict_mt = getmetatable(vim.empty_dict())

local escapes = {
  ['"'] = '\\"',
  ['\\'] = '\\\\',
  ['\b'] = '\\b',
  ['\f'] = '\\f',
  ['\n'] = '\\n',
  ['\r'] = '\\r',
  ['\t'] = '\\t',
}

---@param s string
---@return string
function M.string(s)
  return '"'
    .. s:gsub('[%c"\\]', function(c)
      return escapes[c] or ('\\u%04x'):format(c:byte())
    end)
    .. '"'
end

--- True when t encodes as a JSON array: a non-empty sequence, or an empty table that is not
--- vim.empty_dict() (Lua cannot tell {} from [], so an empty plain table is an array, as in
--- vim.json.encode).
---@param t table
local function is_array(t)
  if getmetatable(t) == empty_dict_mt then
    return false
  end
  local n = 0
  for _ in pairs(t) do
    n = n + 1
  end
  if n == 0 then
    return true
  end
  for i = 1, n do
    if t[i] == nil then
      return false
    end
  end
  return true
end
M.is_array = is_array

---@param t table
---@return string[]
local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    keys[#keys + 1] = tostring(k)
  end
  table.sort(keys)
  return keys
end

local function number(n)
  if n ~= n or n == math.huge or n == -math.huge then
    return 'null'
  end
  if n == math.floor(n) and math.abs(n) < 2 ^ 53 then
    return ('%d'):format(n)
  end
  return ('%.17g'):format(n)
end

---@param value any
---@param indent string? nil for compact output
---@param depth integer
local function encode(value, indent, depth)
  local kind = type(value)
  if value == nil or value == vim.NIL then
    return 'null'
  elseif kind == 'boolean' then
    return tostring(value)
  elseif kind == 'number' then
    return number(value)
  elseif kind == 'string' then
    return M.string(value)
  elseif kind ~= 'table' then
    error(('agentls.json: cannot encode a %s'):format(kind))
  end

  local parts = {}
  local array = is_array(value)
  if array then
    for _, v in ipairs(value) do
      parts[#parts + 1] = encode(v, indent, depth + 1)
    end
  else
    local sep = indent and ': ' or ':'
    for _, k in ipairs(sorted_keys(value)) do
      local v = value[k]
      if v == nil then
        v = value[tonumber(k)]
      end
      parts[#parts + 1] = M.string(k) .. sep .. encode(v, indent, depth + 1)
    end
  end
  local open, close = array and '[' or '{', array and ']' or '}'
  if #parts == 0 then
    return open .. close
  end
  if not indent then
    return open .. table.concat(parts, ',') .. close
  end
  local inner = '\n' .. indent:rep(depth + 1)
  return open .. inner .. table.concat(parts, ',' .. inner) .. '\n' .. indent:rep(depth) .. close
end

--- Compact JSON, keys sorted.
---@param value any
---@return string
function M.encode(value)
  return encode(value, nil, 0)
end

--- Indented JSON (two spaces), keys sorted.
---@param value any
---@return string
function M.pretty(value)
  return encode(value, '  ', 0)
end

return M
