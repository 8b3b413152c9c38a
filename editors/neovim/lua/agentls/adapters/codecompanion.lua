-- agentls tools as codecompanion.nvim tools. Each becomes a function-based tool whose schema is
-- the OpenAI function format around the agentls input schema, and whose one command calls the
-- tool through require('agentls').call. Works with both codecompanion tool signatures:
--   cmds:   function(self, args, input, output_handler)   and   function(self, args, {output_cb})
--   output: success(self, agent, cmd, stdout)               and   success(self, stdout, meta)
--
--   require('codecompanion').setup({
--     interactions = { chat = { tools = require('agentls.adapters.codecompanion').tools() } },
--   })

local agentls = require('agentls')
local shared = require('agentls.adapters')

local M = {}

---@param args table
---@return string
local function brief(args)
  local text = require('agentls.json').encode(args)
  if #text > 120 then
    text = text:sub(1, 117) .. '...'
  end
  return text
end

--- {status, data} as codecompanion expects from a tool function.
---@param result agentls.Result?
---@param err string?
---@return {status: 'success'|'error', data: string}
function M.outcome(result, err)
  if not result then
    return { status = 'error', data = 'agentls: ' .. tostring(err) }
  end
  return { status = result.isError and 'error' or 'success', data = result.content }
end

--- The chat and the output from either signature of codecompanion's output functions.
local function chat_and_output(a, b, c)
  if type(a) == 'table' and a.chat ~= nil then
    return a.chat, c -- (self, agent_or_tools, cmd, stdout_or_stderr)
  end
  return type(b) == 'table' and b.tools and b.tools.chat or nil, a -- (self, output, meta)
end

--- One codecompanion tool table for an agentls tool.
---@param tool agentls.Tool
---@param opts agentls.AdapterOpts?
---@return table
function M.tool(tool, opts)
  local name = shared.model_name(tool, opts)
  local approval = shared.needs_approval(tool, opts)
  return {
    name = name,
    schema = {
      type = 'function',
      ['function'] = {
        name = name,
        description = tool.description,
        parameters = vim.deepcopy(tool.inputSchema),
      },
    },
    cmds = {
      function(_, args, input_or_opts, output_handler)
        args = shared.arguments(args)
        local done = type(input_or_opts) == 'table' and input_or_opts.output_cb or output_handler
        if type(done) ~= 'function' then
          -- a codecompanion that runs tool functions synchronously: return the outcome
          return M.outcome(agentls.call_sync(tool.name, args))
        end
        agentls.call(tool.name, args, function(result, err)
          done(M.outcome(result, err))
        end)
      end,
    },
    output = {
      prompt = function(self)
        return ('Run agentls %s %s?'):format(tool.name, brief(shared.arguments(self.args)))
      end,
      success = function(self, a, b, c)
        local chat, stdout = chat_and_output(a, b, c)
        if chat then
          local shown = ('`%s` %s'):format(name, brief(shared.arguments(self.args)))
          chat:add_tool_output(self, shared.flatten(stdout), shown)
        end
      end,
      error = function(self, a, b, c)
        local chat, stderr = chat_and_output(a, b, c)
        if chat then
          chat:add_tool_output(self, shared.flatten(stderr), ('`%s` failed'):format(name))
        end
      end,
      rejected = function(self, a, b)
        local chat = chat_and_output(a, b, nil)
        if chat then
          chat:add_tool_output(self, ('The user declined to run %s.'):format(name))
        end
      end,
    },
    opts = { requires_approval = approval, require_approval_before = approval },
  }
end

--- The entries for codecompanion's chat tools table: { [name] = {description, callback, opts} }.
--- Lists the tools now (starting agentls for the current buffer or directory if needed).
---@param opts agentls.AdapterOpts?
---@return table<string, table>
function M.tools(opts)
  local out = {}
  for _, t in ipairs(shared.selected(opts)) do
    local tool = M.tool(t, opts)
    out[tool.name] = {
      description = t.description:match('^[^\n]*'),
      callback = tool,
      opts = tool.opts,
    }
  end
  return out
end

--- A codecompanion tool group holding every agentls tool (use it in the chat as @{agentls}).
---@param opts agentls.AdapterOpts?
---@return table
function M.group(opts)
  local names = {}
  for _, t in ipairs(shared.selected(opts)) do
    names[#names + 1] = shared.model_name(t, opts)
  end
  return {
    description = 'agentls: tools that act on the editor session (open buffers, undoable edits)',
    tools = names,
    opts = { collapse_tools = true },
  }
end

return M
