-- What the agent-plugin adapters share: which tools to offer, under which names, and which of
-- them ask the user first.

local M = {}

--- The prefix every tool name gets by default, so that no agentls tool takes the name of one the
--- agent plugin has built in (read_file, edit_file, bash, ...).
M.default_prefix = 'agentls_'

---@class agentls.AdapterOpts
---@field prefix string? prepended to every tool name the model sees (default 'agentls_'); a name
---                      that is still taken by one of the plugin's own tools is left out, with a
---                      warning, rather than shadowing it
---@field only string[]? offer only these tools (agentls names)
---@field exclude string[]? leave these tools out (agentls names)
---@field require_approval 'writes'|'all'|'none'? which tools ask through the plugin's own
---                      approval before they run (default 'writes': every tool that is not
---                      read-only)
---@field approval table<string, boolean>? per tool (agentls name): true asks, false runs without
---                      asking, whatever require_approval says
---@field bufnr integer? the buffer whose agentls client runs the calls (default: the chat's
---                      source buffer where the plugin says, else the current buffer)
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

local warned = {}

--- M.selected for an agent plugin's configuration: when the tools cannot be listed (no server,
--- a timeout) the plugin gets none of them and the user one warning per message, instead of an
--- error that would break the plugin's setup or request.
---@param opts agentls.AdapterOpts?
---@param plugin string the agent plugin, for the message
---@return agentls.Tool[]
function M.offered(opts, plugin)
  local ok, tools = pcall(M.selected, opts)
  if ok then
    return tools
  end
  local msg = ('%s (no agentls tools offered to %s; see :checkhealth agentls)'):format(tostring(tools), plugin)
  if not warned[msg] then
    warned[msg] = true
    vim.notify(msg, vim.log.levels.WARN)
  end
  return {}
end

---@param tool agentls.Tool
---@param opts agentls.AdapterOpts?
---@return string
function M.model_name(tool, opts)
  local prefix = opts and opts.prefix
  if prefix == nil then
    prefix = M.default_prefix
  end
  return prefix .. tool.name
end

---@param tool agentls.Tool
---@param opts agentls.AdapterOpts?
---@return boolean
function M.needs_approval(tool, opts)
  local per_tool = opts and opts.approval and opts.approval[tool.name]
  if per_tool ~= nil then
    return per_tool == true
  end
  local mode = (opts and opts.require_approval) or 'writes'
  return mode == 'all' or (mode == 'writes' and not tool.readOnly)
end

--- Tool arguments as the model sent them: a table, or a JSON object as text (some providers);
--- anything else (nil, vim.NIL, bad JSON) is an empty object.
---@param args any
---@return table
function M.arguments(args)
  if type(args) == 'string' then
    local ok, decoded = pcall(vim.json.decode, args ~= '' and args or '{}')
    args = ok and decoded or nil
  end
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

--- The text the model gets for a call that did not happen or failed to reach the server.
---@param result agentls.Result?
---@param err string?
---@return string text
---@return boolean is_error
function M.answer(result, err)
  if not result then
    return 'agentls: ' .. tostring(err), true
  end
  return result.content, result.isError
end

--- One line for the user: `name` {"arg":...} cut to 120 characters.
---@param name string
---@param args table
---@return string
function M.brief(name, args)
  local text = require('agentls.json').encode(args)
  if #text > 120 then
    text = text:sub(1, 117) .. '...'
  end
  return ('`%s` %s'):format(name, text)
end

--- A buffer agentls can serve calls for: a loaded file buffer.
---@param bufnr any
---@return integer?
function M.file_buffer(bufnr)
  if type(bufnr) == 'number' and vim.api.nvim_buf_is_valid(bufnr) and require('agentls.lsp').is_file_buffer(bufnr) then
    return bufnr
  end
  return nil
end

return M
