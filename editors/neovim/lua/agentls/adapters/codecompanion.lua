-- agentls tools as codecompanion.nvim tools, for codecompanion 19 (verified with v19.22.0) and 18
-- (v18.7.0). The version is told apart at run time by what codecompanion passes in:
--
--   tool config   { description, callback = <function returning the tool>, opts }  (both: 19
--                 resolves a tool only from a function callback or a path; 18 from either)
--   command       19: cmd(tools, args, { input, output_cb, register_job })
--                 18: cmd(tools, args, input, output_handler)
--   output        19: success/error(self, data, { cmd, tools }), rejected(self, { cmd, tools, opts }),
--                     cancelled(self, { cmd, tools }), prompt(self, { tools })
--                 18: success/error(self, tools, cmd, data), rejected(self, tools, cmd, opts),
--                     cancelled(self, tools, cmd), prompt(self, tools)
--
-- Every outcome answers the model's tool call through chat:add_tool_output(self, ...), which
-- codecompanion turns into the tool message carrying the call's id.
--
--   require('codecompanion').setup({
--     interactions = { chat = { tools = require('agentls.adapters.codecompanion').config() } },
--   })
--
-- then `@{agentls}` in a chat offers every tool (agentls_read_file, agentls_edit_file, ...).

local agentls = require('agentls')
local shared = require('agentls.adapters')

local M = {}

M.group_name = 'agentls'

--- {status, data} as a codecompanion command answers its output callback.
---@param result agentls.Result?
---@param err string?
---@return {status: 'success'|'error', data: string}
function M.outcome(result, err)
  local text, is_error = shared.answer(result, err)
  return { status = is_error and 'error' or 'success', data = text }
end

--- The chat from an output function's arguments after self: 19 passes (data, meta) or (meta),
--- where meta.tools is the Tools object; 18 passes (tools, cmd, ...), the Tools object first.
---@return table? chat
---@return any data 19: the data argument; 18: the argument after cmd
---@return table? opts the rejection options ({reason})
local function unpack_output(a, b, c)
  if type(a) == 'table' and type(a.chat) == 'table' and a.bufnr ~= nil then
    return a.chat, c, type(c) == 'table' and c or nil -- 18: (tools, cmd, data | opts)
  end
  if type(b) == 'table' and type(b.tools) == 'table' then
    return b.tools.chat, a, nil -- 19: (data, meta)
  end
  if type(a) == 'table' and type(a.tools) == 'table' then
    return a.tools.chat, nil, a.opts -- 19: (meta) for rejected and cancelled
  end
  return nil, nil, nil
end

--- The chat's source buffer when it is a file (codecompanion 18 and 19 keep it in
--- chat.buffer_context), so calls go to the agentls client of the user's project.
---@param tools table? the Tools object codecompanion passes to a command
---@return integer?
local function source_buffer(tools)
  local chat = type(tools) == 'table' and tools.chat
  local ctx = type(chat) == 'table' and chat.buffer_context
  return shared.file_buffer(type(ctx) == 'table' and ctx.bufnr or nil)
end

--- The codecompanion tool for an agentls tool (what the config's callback returns).
---@param tool agentls.Tool
---@param opts agentls.AdapterOpts?
---@return table
function M.tool(tool, opts)
  local name = shared.model_name(tool, opts)

  local function answer(self, chat, text, for_user)
    if chat and self.function_call then
      chat:add_tool_output(self, text, for_user)
    end
  end

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
      ---@param tools table codecompanion's Tools object (tools.tool is this call's tool)
      function(tools, args, input_or_opts, output_handler)
        args = shared.arguments(args)
        local v19 = type(input_or_opts) == 'table' and type(input_or_opts.output_cb) == 'function'
        local done = v19 and input_or_opts.output_cb or output_handler
        local current = type(tools) == 'table' and type(tools.tool) == 'table' and tools.tool or nil
        local call_opts = { bufnr = (opts and opts.bufnr) or source_buffer(tools) }
        local function finish(result, err)
          local o = M.outcome(result, err)
          if current then
            current.agentls_output = o.data -- what output.success/error report for this call
          end
          return o
        end
        if type(done) ~= 'function' then
          return finish(agentls.call_sync(tool.name, args, nil, call_opts))
        end
        local handle = agentls.call(tool.name, args, function(result, err)
          done(finish(result, err))
        end, call_opts)
        if v19 and type(input_or_opts.register_job) == 'function' then
          -- codecompanion's Stop kills the registered job: that cancels the agentls call
          input_or_opts.register_job({
            kill = function()
              handle.cancel()
            end,
          })
        end
      end,
    },
    output = {
      prompt = function(self)
        return ('Run %s?'):format(shared.brief(name, shared.arguments(self.args)))
      end,
      cmd_string = function(self)
        return require('agentls.json').encode(shared.arguments(self.args))
      end,
      success = function(self, a, b, c)
        local chat, data = unpack_output(a, b, c)
        answer(self, chat, self.agentls_output or shared.flatten(data), shared.brief(name, shared.arguments(self.args)))
      end,
      error = function(self, a, b, c)
        local chat, data = unpack_output(a, b, c)
        if self.agentls_output == nil and type(data) == 'table' then
          data = data[#data] -- codecompanion collects every failure of the turn: this call's is last
        end
        local text = self.agentls_output or shared.flatten(data)
        answer(self, chat, text, ('%s failed'):format(shared.brief(name, shared.arguments(self.args))))
      end,
      rejected = function(self, a, b, c)
        local chat, _, ropts = unpack_output(a, b, c)
        local text = ('The user declined to run %s.'):format(name)
        if ropts and type(ropts.reason) == 'string' and ropts.reason ~= '' then
          text = ('%s Reason: %s'):format(text, ropts.reason)
        end
        answer(self, chat, text)
      end,
      cancelled = function(self, a, b, c)
        local chat = unpack_output(a, b, c)
        answer(self, chat, ('The user cancelled %s before it finished.'):format(name))
      end,
    },
  }
end

--- The names codecompanion already has a tool (or group) under, from its default config.
---@return table<string, boolean>
local function taken_names()
  local ok, cfg = pcall(require, 'codecompanion.config')
  local tools = ok and type(cfg) == 'table' and vim.tbl_get(cfg, 'interactions', 'chat', 'tools') or nil
  local taken = {}
  if type(tools) == 'table' then
    for k in pairs(tools) do
      taken[k] = true
    end
    for k in pairs(type(tools.groups) == 'table' and tools.groups or {}) do
      taken[k] = true
    end
  end
  return taken
end

--- The entries for codecompanion's chat tools table: { [name] = {description, callback, opts} }.
--- Lists the tools now (starting agentls for the current buffer or directory if needed). A name
--- codecompanion already uses is left out (with a warning) instead of shadowing its tool.
---@param opts agentls.AdapterOpts?
---@return table<string, table>
function M.tools(opts)
  local out, taken, skipped = {}, taken_names(), {}
  for _, t in ipairs(shared.offered(opts, 'codecompanion')) do
    local name = shared.model_name(t, opts)
    if taken[name] then
      skipped[#skipped + 1] = name
    else
      local approval = shared.needs_approval(t, opts)
      out[name] = {
        description = ('agentls: %s'):format(t.description:match('^[^\n]*')),
        callback = function()
          return M.tool(t, opts)
        end,
        opts = { require_approval_before = approval },
      }
    end
  end
  if #skipped > 0 then
    vim.notify(
      ('agentls: codecompanion already has %s; not offered (set a prefix)'):format(table.concat(skipped, ', ')),
      vim.log.levels.WARN
    )
  end
  return out
end

--- A codecompanion tool group holding the given tools (use it in the chat as @{agentls}).
---@param tools table<string, table> what M.tools returned
---@return table
function M.group(tools)
  local names = vim.tbl_keys(tools)
  table.sort(names)
  return {
    description = 'agentls: tools that act on the editor session (open buffers, undoable edits)',
    tools = names,
    opts = { collapse_tools = true },
  }
end

--- Everything for interactions.chat.tools: the tools and an `agentls` group holding them.
---@param opts agentls.AdapterOpts?
---@return table
function M.config(opts)
  local tools = M.tools(opts)
  local cfg = { groups = { [M.group_name] = M.group(tools) } }
  for k, v in pairs(tools) do
    cfg[k] = v
  end
  return cfg
end

return M
