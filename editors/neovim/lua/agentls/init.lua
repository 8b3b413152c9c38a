-- agentls for Neovim: attaches the agentls language server to file buffers and gives agent plugins
-- a Lua API over its tool registry. See :help agentls.
--
-- Every call goes through workspace/executeCommand on the client serving the current buffer
-- (or opts.bufnr); when no client runs yet, one is started for that buffer's root or for the
-- current directory. Callbacks run on the main loop; the *_sync forms wait with vim.wait and must
-- not be called from a fast event (a luv callback).

local config = require('agentls.config')
local lsp = require('agentls.lsp')

local M = {}

---@class agentls.Tool
---@field name string
---@field description string
---@field readOnly boolean
---@field inputSchema table the tool's JSON Schema as a Lua table (empty objects are vim.empty_dict())

---@class agentls.Result
---@field content string
---@field isError boolean

---@class agentls.CallOpts
---@field bufnr integer? the buffer whose client to use (default: the current one)
---@field workspace string? a workspace folder URI (default: the server's choice)
---@field timeout_ms integer? for the *_sync forms (default: setup's timeout_ms)

local empty_dict_mt = getmetatable(vim.empty_dict())

--- Arguments as a JSON object: nil and an empty plain table would go out as [] or null.
---@param args table|string|nil
---@return table? args
---@return string? err
local function as_object(args)
  if args == nil or args == vim.NIL then
    return vim.empty_dict()
  end
  if type(args) == 'string' then
    local ok, decoded = pcall(vim.json.decode, args)
    if not ok or type(decoded) ~= 'table' then
      return nil, 'arguments are not a JSON object: ' .. args
    end
    args = decoded
  end
  if type(args) ~= 'table' then
    return nil, ('arguments must be a table, got %s'):format(type(args))
  end
  if next(args) == nil and getmetatable(args) ~= empty_dict_mt then
    return vim.empty_dict()
  end
  return args
end

---@param opts agentls.CallOpts?
---@param fields table?
local function command_arg(opts, fields)
  local arg = vim.empty_dict()
  for k, v in pairs(fields or {}) do
    arg[k] = v
  end
  if opts and opts.workspace then
    arg.workspace = opts.workspace
  end
  return arg
end

---@param raw any
---@return agentls.Result
local function as_result(raw)
  if type(raw) ~= 'table' then
    return { content = 'agentls: malformed tool result: ' .. vim.inspect(raw), isError = true }
  end
  local content = raw.content
  if type(content) ~= 'string' then
    content = content == nil and '' or vim.inspect(content)
  end
  return { content = content, isError = raw.isError == true }
end

---@param raw any
---@return agentls.Tool[]
local function as_tools(raw)
  local list = {}
  for _, t in ipairs(type(raw) == 'table' and raw or {}) do
    local schema = t.inputSchema
    if type(schema) == 'string' then
      local ok, decoded = pcall(vim.json.decode, schema)
      schema = ok and decoded or nil
    end
    if type(schema) ~= 'table' then
      schema = { type = 'object', properties = vim.empty_dict() }
    end
    list[#list + 1] = {
      name = t.name,
      description = type(t.description) == 'string' and t.description or '',
      readOnly = t.readOnly == true,
      inputSchema = schema,
    }
  end
  return list
end

--- The last tool list received (used for command-line completion); nil before the first.
---@type agentls.Tool[]?
M.last_tools = nil

---@param cb fun(a: any, b: any)
local function schedule_err(cb, err)
  vim.schedule(function()
    cb(nil, err)
  end)
  return { cancel = function() end }
end

--- Configures the plugin and, unless autostart = false, attaches agentls to every file buffer
--- (those already open and those read later).
---@param opts table?
function M.setup(opts)
  local o = config.set(opts)
  local group = vim.api.nvim_create_augroup('agentls', { clear = true })
  if not o.autostart then
    return
  end
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
    group = group,
    callback = function(ev)
      lsp.attach(ev.buf)
    end,
  })
  -- a [No Name] buffer named by `:write name` gets its name with no event of the ones above
  vim.api.nvim_create_autocmd('BufWritePost', {
    group = group,
    callback = function(ev)
      if #lsp.clients({ bufnr = ev.buf }) == 0 then
        lsp.attach(ev.buf)
      end
    end,
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      lsp.attach(bufnr)
    end
  end
end

--- Lists the tools: cb(tools, err, result) where result is the whole agentls.listTools answer
--- ({workspace, revision, digest, tools}).
---@param cb fun(tools: agentls.Tool[]?, err: string?, result: table?)
---@param opts agentls.CallOpts?
---@return agentls.Handle
function M.tools(cb, opts)
  return lsp.execute('agentls.listTools', command_arg(opts), function(res, err)
    if err or type(res) ~= 'table' then
      return cb(nil, err or 'agentls.listTools: no result')
    end
    local list = as_tools(res.tools)
    M.last_tools = list
    cb(list, nil, res)
  end, opts)
end

---@param timeout_ms integer?
---@param opts agentls.CallOpts?
---@return agentls.Tool[]?, string?
function M.tools_sync(timeout_ms, opts)
  return lsp.wait(function(cb)
    return M.tools(cb, opts)
  end, timeout_ms or (opts and opts.timeout_ms))
end

--- Calls one tool: cb(result, err). A tool failure is a result with isError = true; err is for
--- what kept the call from happening (no server, a protocol error, cancelled).
---@param name string
---@param args table|string|nil the arguments (a table, or a JSON object as text)
---@param cb fun(result: agentls.Result?, err: string?)
---@param opts agentls.CallOpts?
---@return agentls.Handle handle whose cancel() stops the call (the server kills its processes)
function M.call(name, args, cb, opts)
  if type(name) ~= 'string' or name == '' then
    return schedule_err(cb, 'agentls.call: the tool name must be a non-empty string')
  end
  local arguments, err = as_object(args)
  if not arguments then
    return schedule_err(cb, 'agentls.call: ' .. err)
  end
  return lsp.execute('agentls.callTool', command_arg(opts, { name = name, arguments = arguments }), function(res, e)
    if e then
      return cb(nil, e)
    end
    cb(as_result(res))
  end, opts)
end

---@param name string
---@param args table|string|nil
---@param timeout_ms integer?
---@param opts agentls.CallOpts?
---@return agentls.Result?, string?
function M.call_sync(name, args, timeout_ms, opts)
  return lsp.wait(function(cb)
    return M.call(name, args, cb, opts)
  end, timeout_ms or (opts and opts.timeout_ms))
end

--- Calls several tools in one request: cb(results, err), results in call order. The server runs
--- them in parallel only when every one is read-only.
---@param calls {name: string, arguments: table|string|nil}[]
---@param cb fun(results: agentls.Result[]?, err: string?)
---@param opts agentls.CallOpts?
---@return agentls.Handle
function M.call_batch(calls, cb, opts)
  if type(calls) ~= 'table' or #calls == 0 then
    return schedule_err(cb, 'agentls.call_batch: calls must be a non-empty list')
  end
  local wire = {}
  for i, c in ipairs(calls) do
    local arguments, err = as_object(c.arguments)
    if type(c.name) ~= 'string' or not arguments then
      return schedule_err(cb, ('agentls.call_batch: call %d: %s'):format(i, err or 'no tool name'))
    end
    wire[i] = { name = c.name, arguments = arguments }
  end
  return lsp.execute('agentls.callTools', command_arg(opts, { calls = wire }), function(res, e)
    if e then
      return cb(nil, e)
    end
    local results = {}
    for i, r in ipairs(type(res) == 'table' and type(res.results) == 'table' and res.results or {}) do
      results[i] = as_result(r)
    end
    cb(results)
  end, opts)
end

---@param calls {name: string, arguments: table|string|nil}[]
---@param timeout_ms integer?
---@param opts agentls.CallOpts?
---@return agentls.Result[]?, string?
function M.call_batch_sync(calls, timeout_ms, opts)
  return lsp.wait(function(cb)
    return M.call_batch(calls, cb, opts)
  end, timeout_ms or (opts and opts.timeout_ms))
end

--- The symbol index: cb({state = 'indexing'|'ready', files, symbols, languages}, err).
---@param cb fun(status: table?, err: string?)
---@param opts agentls.CallOpts?
---@return agentls.Handle
function M.index_status(cb, opts)
  return lsp.execute('agentls.indexStatus', command_arg(opts), cb, opts)
end

---@param timeout_ms integer?
---@param opts agentls.CallOpts?
---@return table?, string?
function M.index_status_sync(timeout_ms, opts)
  return lsp.wait(function(cb)
    return M.index_status(cb, opts)
  end, timeout_ms or (opts and opts.timeout_ms))
end

--- The running agentls clients.
---@return vim.lsp.Client[]
function M.clients()
  return lsp.clients()
end

return M
