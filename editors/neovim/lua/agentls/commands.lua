-- The user commands (defined in plugin/agentls.lua, implemented here so nothing loads before
-- first use): :AgentlsTools, :AgentlsCall, :AgentlsStatus.

local agentls = require('agentls')
local json = require('agentls.json')
local lsp = require('agentls.lsp')
local schema = require('agentls.schema')

local M = {}

---@param msg string
---@param level integer?
local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

--- Shows lines in a scratch buffer named name: the buffer is reused if it exists and shown in
--- the current window when split is false, else in a window of its own below.
---@param name string
---@param lines string[]
---@param opts {split: boolean?, filetype: string?}?
---@return integer bufnr
function M.scratch(name, lines, opts)
  opts = opts or {}
  local bufnr = -1
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then
      bufnr = b
    end
  end
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, name)
  end
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'hide'
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].modified = false
  if opts.filetype then
    vim.bo[bufnr].filetype = opts.filetype
  end
  local win = vim.fn.bufwinid(bufnr)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  elseif opts.split then
    vim.cmd('botright sbuffer ' .. bufnr)
  else
    vim.api.nvim_win_set_buf(0, bufnr)
  end
  vim.keymap.set('n', 'q', function()
    if #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.cmd('close')
    else
      vim.cmd('bdelete') -- the last window: show another buffer instead
    end
  end, { buffer = bufnr, nowait = true, desc = 'Close' })
  return bufnr
end

---@param text string
---@return string[]
local function lines_of(text)
  local lines = vim.split(text, '\n', { plain = true })
  if #lines > 1 and lines[#lines] == '' then
    lines[#lines] = nil
  end
  return lines
end

--- The schema of one tool, as markdown: name, read-only flag, description, the schema as JSON.
---@param tool agentls.Tool
function M.show_schema(tool)
  local lines = { ('# %s%s'):format(tool.name, tool.readOnly and ' (read-only)' or ''), '' }
  vim.list_extend(lines, lines_of(tool.description))
  vim.list_extend(lines, { '', 'Arguments: ' .. schema.signature(tool.inputSchema), '', '```json' })
  vim.list_extend(lines, lines_of(json.pretty(tool.inputSchema)))
  lines[#lines + 1] = '```'
  local bufnr = M.scratch('agentls://schema/' .. tool.name, lines, { filetype = 'markdown' })
  vim.b[bufnr].agentls_tool = tool.name
  return bufnr
end

--- :AgentlsTools: a buffer listing the tools, one a line; <CR> shows a tool's schema, c calls it.
function M.tools()
  agentls.tools(function(tools, err, result)
    if not tools then
      return notify(err, vim.log.levels.ERROR)
    end
    local width = 0
    for _, t in ipairs(tools) do
      width = math.max(width, #t.name)
    end
    local header = ('%d tools in %s  (<CR> schema, c call, q close)'):format(
      #tools,
      result.workspace and vim.uri_to_fname(result.workspace) or '?'
    )
    local lines, by_line = { header }, {}
    for _, t in ipairs(tools) do
      local summary = t.description:match('^[^\n]*')
      lines[#lines + 1] = ('%-' .. width .. 's  %s  %s'):format(t.name, t.readOnly and 'ro' or 'rw', summary)
      by_line[#lines] = t
    end
    local bufnr = M.scratch('agentls://tools', lines, { split = true })
    local function tool_under_cursor()
      return by_line[vim.api.nvim_win_get_cursor(0)[1]]
    end
    vim.keymap.set('n', '<CR>', function()
      local t = tool_under_cursor()
      if t then
        M.show_schema(t)
      end
    end, { buffer = bufnr, desc = 'Show the tool schema' })
    vim.keymap.set('n', 'c', function()
      local t = tool_under_cursor()
      if t then
        M.prompt(t)
      end
    end, { buffer = bufnr, nowait = true, desc = 'Call the tool' })
    if #lines > 1 then
      vim.api.nvim_win_set_cursor(0, { 2, 0 })
    end
  end)
end

--- Runs a tool and shows its content in the scratch buffer agentls://call/<name>.
---@param name string
---@param args table|string|nil
---@return agentls.Handle
function M.run(name, args)
  return agentls.call(name, args, function(result, err)
    if not result then
      return notify(('%s: %s'):format(name, err), vim.log.levels.ERROR)
    end
    local bufnr = M.scratch('agentls://call/' .. name, lines_of(result.content), { split = true })
    vim.b[bufnr].agentls_result = { name = name, isError = result.isError }
    if result.isError then
      notify(name .. ' returned an error', vim.log.levels.WARN)
    end
  end)
end

--- Asks for a tool's arguments with vim.ui.input, pre-filled from its schema, then runs it.
---@param tool agentls.Tool
function M.prompt(tool)
  vim.ui.input({
    prompt = ('%s(%s) '):format(tool.name, schema.signature(tool.inputSchema)),
    default = schema.prefill(tool.inputSchema),
  }, function(input)
    if input == nil then
      return
    end
    if vim.trim(input) == '' then
      input = '{}'
    end
    M.run(tool.name, input)
  end)
end

---@param name string
---@param cb fun(tool: agentls.Tool)
local function find_tool(name, cb)
  agentls.tools(function(tools, err)
    if not tools then
      return notify(err, vim.log.levels.ERROR)
    end
    for _, t in ipairs(tools) do
      if t.name == name then
        return cb(t)
      end
    end
    notify(('no tool named %q (see :AgentlsTools)'):format(name), vim.log.levels.ERROR)
  end)
end

--- :AgentlsCall [tool [json]]: with JSON, runs the tool; with a tool only, prompts for its
--- arguments; with nothing, picks the tool first.
---@param args string the command line after the command name
function M.call(args)
  local name, rest = vim.trim(args):match('^(%S*)%s*(.*)$')
  if name ~= '' and rest ~= '' then
    return M.run(name, rest)
  end
  if name ~= '' then
    return find_tool(name, M.prompt)
  end
  agentls.tools(function(tools, err)
    if not tools then
      return notify(err, vim.log.levels.ERROR)
    end
    vim.ui.select(tools, {
      prompt = 'agentls tool',
      kind = 'agentls.tool',
      format_item = function(t)
        return ('%s  %s'):format(t.name, t.description:match('^[^\n]*'))
      end,
    }, function(t)
      if t then
        M.prompt(t)
      end
    end)
  end)
end

--- Tool names for the command line (only the first argument is a tool name).
---@param arglead string
---@param cmdline string
---@return string[]
function M.complete(arglead, cmdline)
  if cmdline:match('^%s*%S+%s+%S+%s') then
    return {}
  end
  local tools = agentls.last_tools
  if not tools and #lsp.clients() > 0 then
    tools = agentls.tools_sync(1000)
  end
  local names = {}
  for _, t in ipairs(tools or {}) do
    if vim.startswith(t.name, arglead) then
      names[#names + 1] = t.name
    end
  end
  return names
end

--- "go, lua" from a list of names, or "go 12, lua 3" from a map of name to count.
---@param v any
---@return string
local function languages(v)
  if type(v) ~= 'table' then
    return ''
  end
  if json.is_array(v) then
    return table.concat(vim.tbl_map(tostring, v), ', ')
  end
  local parts = {}
  for k, n in pairs(v) do
    parts[#parts + 1] = ('%s %s'):format(k, tostring(n))
  end
  table.sort(parts)
  return table.concat(parts, ', ')
end

--- Lines describing each running client and its index.
---@return string[]
function M.status_lines()
  local clients = lsp.clients()
  if #clients == 0 then
    return { 'agentls: not running (no file buffer is attached; see :help agentls-setup)' }
  end
  local lines = {
    ('agentls: %d client%s, server %s'):format(#clients, #clients == 1 and '' or 's', table.concat(lsp.cmd(), ' ')),
  }
  for _, c in ipairs(clients) do
    lines[#lines + 1] = ('[%d] %s%s'):format(c.id, c.root_dir or '(no root)', c.initialized and '' or ' (starting)')
    local folders = {}
    for _, f in ipairs(c.workspace_folders or {}) do
      folders[#folders + 1] = vim.uri_to_fname(f.uri)
    end
    lines[#lines + 1] = '    folders: ' .. (#folders > 0 and table.concat(folders, ', ') or '(none)')
    local n = 0
    for _ in pairs(c.attached_buffers or {}) do
      n = n + 1
    end
    lines[#lines + 1] = ('    buffers: %d attached'):format(n)
    local status, err = agentls.index_status_sync(3000, { client_id = c.id })
    if status then
      local langs = languages(status.languages)
      lines[#lines + 1] = ('    index: %s, %s files, %s symbols%s%s'):format(
        tostring(status.state),
        tostring(status.files),
        tostring(status.symbols),
        langs ~= '' and (' (' .. langs .. ')') or '',
        type(status.error) == 'string' and status.error ~= '' and ('; error: ' .. status.error) or ''
      )
    else
      lines[#lines + 1] = '    index: ' .. tostring(err)
    end
  end
  return lines
end

--- :AgentlsStatus
function M.status()
  vim.api.nvim_echo({ { table.concat(M.status_lines(), '\n') } }, true, {})
end

return M
