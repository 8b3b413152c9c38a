-- What the agent-plugin adapters share: which tools to offer and under which names.

local M = {}

---@class agentls.AdapterOpts
---@field prefix string? prepended to every tool name the model sees (default ''), to avoid
---                      clashing with the agent plugin's own tools of the same name
---@field only string[]? offer only these tools (agentls names)
---@field exclude string[]? leave these tools out (agentls names)
---@field require_approval 'none'|'writes'|'all'? ask in the agent plugin before a call (default
---                      'none': agentls itself asks for the tools its approvals mark "ask")
---@field timeout_ms integer? bound for listing the tools (default setup's timeout_ms)
---@field tools agentls.Tool[]? use this list instead of asking the server (tests, caching)

---@param list string[]?
---@return table<string, boolean>?
local function set_of(list)
  if not list then
    return nil
  end
  local s = {}
  for _, v in ipairs(list) do
    s[v] = true
  end
  return s
end

--- The tools to offer, after only/exclude; raises an error when the server cannot list them.
---@param opts agentls.AdapterOpts?
---@return agentls.Tool[]
function M.selected(opts)
  opts = opts or {}
  local tools = opts.tools
  if not tools then
    local err
    tools, err = require('agentls').tools_sync(opts.timeout_ms)
    if not tools then
      error('agentls: cannot list the tools: ' .. tostring(err), 0)
    end
  end
  local only, exclude = set_of(opts.only), set_of(opts.exclude) or {}
  local out = {}
  for _, t in ipairs(tools) do
    if (not only or only[t.name]) and not exclude[t.name] then
      out[#out + 1] = t
    end
  end
  return out
end

---@param tool agentls.Tool
---@param opts agentls.AdapterOpts?
---@return string
function M.model_name(tool, opts)
  return ((opts and opts.prefix) or '') .. tool.name
end

---@param tool agentls.Tool
---@param opts agentls.AdapterOpts?
---@return boolean
function M.needs_approval(tool, opts)
  local mode = (opts and opts.require_approval) or 'none'
  return mode == 'all' or (mode == 'writes' and not tool.readOnly)
end

--- Tool arguments as the model sent them (nil or vim.NIL when it sent none).
---@param args any
---@return table
function M.arguments(args)
  if type(args) ~= 'table' then
    return vim.empty_dict()
  end
  return args
end

--- The strings in a (possibly nested) list, joined by newlines.
---@param v any
---@return string
function M.flatten(v)
  if type(v) == 'string' then
    return v
  end
  if type(v) ~= 'table' then
    return v == nil and '' or tostring(v)
  end
  local parts = {}
  for _, x in ipairs(v) do
    parts[#parts + 1] = M.flatten(x)
  end
  return table.concat(parts, '\n')
end

return M
