-- Running agentls: the client configuration, one client per workspace root, and the
-- workspace/executeCommand requests the Lua API is made of. Works on Neovim 0.10 (client methods
-- called with '.') and 0.11+ (with ':').

local config = require('agentls.config')
local handlers = require('agentls.handlers')

local M = {}

M.name = 'agentls'

local has_011 = vim.fn.has('nvim-0.11') == 1

--- Neovim's client capabilities plus the agentls extension the server looks for.
---@return lsp.ClientCapabilities
function M.capabilities()
  return vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), {
    experimental = {
      agentls = { saveDocument = true, diagnostics = true, languageRequest = true, editorState = true },
    },
  })
end

--- True for a buffer agentls attaches to: a normal buffer named after a file (existing or new),
--- not a directory and not a URI such as fugitive:// or oil://.
---@param bufnr integer
---@return boolean
function M.is_file_buffer(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return false
  end
  return vim.fn.isdirectory(name) == 0
end

--- Neovim's current directory when it holds path (below it), and is neither / nor $HOME (a root
--- there would index the whole disk or home): a project opened without a root marker.
---@param path string normalized absolute path
---@return string?
local function cwd_holding(path)
  local cwd = vim.fs.normalize(vim.fn.getcwd())
  local home = vim.env.HOME and vim.fs.normalize(vim.env.HOME) or nil
  if cwd == '/' or cwd == home then
    return nil
  end
  if path:sub(1, #cwd + 1) == cwd .. '/' then
    return cwd
  end
  return nil
end

--- The workspace root of a file buffer: the nearest ancestor holding one of the markers, else
--- Neovim's current directory when the file is below it (not / or $HOME), else the file's own
--- directory.
---@param bufnr integer
---@param markers string[]?
---@return string
function M.buffer_root(bufnr, markers)
  markers = markers or config.get().root_markers
  local root = #markers > 0 and vim.fs.root(bufnr, markers) or nil
  if root then
    return vim.fs.normalize(root)
  end
  local name = vim.fs.normalize(vim.api.nvim_buf_get_name(bufnr))
  return cwd_holding(name) or vim.fs.dirname(name)
end

--- The workspace root for a directory (used when no file is open): marker search from dir, else
--- dir itself.
---@param dir string
---@param markers string[]?
---@return string
function M.dir_root(dir, markers)
  markers = markers or config.get().root_markers
  local root = #markers > 0 and vim.fs.root(dir, markers) or nil
  return vim.fs.normalize(root or dir)
end

--- The options clients are made from: setup()'s, or on 0.11+, when setup() was not called, those
--- given to vim.lsp.config('agentls', ...) (so the API starts the server the same way
--- vim.lsp.enable('agentls') does).
---@return {cmd: string[], settings: table?, on_attach: function?, debounce_ms: integer?}
function M.configured()
  local o = config.get()
  if has_011 and not config.is_set() then
    local ok, cfg = pcall(function()
      return vim.lsp.config[M.name]
    end)
    if ok and type(cfg) == 'table' then
      return {
        cmd = type(cfg.cmd) == 'table' and cfg.cmd or o.cmd,
        settings = type(cfg.settings) == 'table' and cfg.settings.agentls or nil,
        on_attach = cfg.on_attach,
        debounce_ms = type(cfg.flags) == 'table' and cfg.flags.debounce_text_changes or nil,
      }
    end
  end
  return o
end

-- The unanswered requests of each client, so that they end with an error if the server exits
-- (Neovim does not call a request's handler then): client id -> { [finish] = true }.
local pending = {}

--- on_exit of every agentls client: ends its unanswered requests.
---@param code integer
---@param signal integer
---@param client_id integer
function M.on_exit(code, signal, client_id)
  local waiting = pending[client_id]
  pending[client_id] = nil
  for finish in pairs(waiting or {}) do
    finish(nil, ('agentls: the server exited (code %d, signal %d) before it answered'):format(code or -1, signal or 0))
  end
end

-- What agentls answers from its symbol index besides the tools.
M.navigation_capabilities =
  { 'definitionProvider', 'referencesProvider', 'documentSymbolProvider', 'workspaceSymbolProvider' }

--- The client configuration for a root. Settings go both ways the server reads them:
--- initializationOptions, and the "agentls" section of workspace/configuration.
---@param root string
---@return vim.lsp.ClientConfig
function M.client_config(root)
  local opts = M.configured()
  local settings = opts.settings
  if settings ~= nil and next(settings) == nil then
    settings = nil
  end
  return {
    name = M.name,
    cmd = opts.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = M.capabilities(),
    handlers = handlers.all(),
    init_options = settings,
    settings = settings and { agentls = settings } or nil,
    on_attach = opts.on_attach,
    on_exit = M.on_exit,
    on_init = opts.navigation == false and function(client)
      for _, cap in ipairs(M.navigation_capabilities) do
        client.server_capabilities[cap] = nil
      end
    end or nil,
    flags = { debounce_text_changes = opts.debounce_ms or config.defaults.debounce_ms },
  }
end

local warned = {}

--- Reports a failure to start the server once per message, not once per buffer.
---@param msg string
local function warn_once(msg)
  if not warned[msg] then
    warned[msg] = true
    vim.notify(msg, vim.log.levels.ERROR)
  end
end

--- Why cmd cannot start, or nil when its program is executable.
---@param cmd string[]
---@return string?
local function unstartable(cmd)
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' or vim.fn.executable(cmd[1]) ~= 1 then
    return ('agentls: %s is not executable (see :checkhealth agentls)'):format(
      type(cmd) == 'table' and tostring(cmd[1]) or tostring(cmd)
    )
  end
  return nil
end

--- Starts (or reuses) the client for the buffer's root and attaches the buffer.
---@param bufnr integer
---@return integer? client_id
---@return string? err
function M.attach(bufnr)
  if not M.is_file_buffer(bufnr) then
    return nil, 'not a file buffer'
  end
  local cfg = M.client_config(M.buffer_root(bufnr))
  local why = unstartable(cfg.cmd)
  if why then
    warn_once(why)
    return nil, why
  end
  local ok, id = pcall(vim.lsp.start, cfg, { bufnr = bufnr })
  if not ok or not id then
    local msg = ('agentls: could not start %s: %s'):format(table.concat(cfg.cmd, ' '), ok and 'no client' or id)
    warn_once(msg)
    return nil, msg
  end
  return id
end

--- Starts a client for a root without attaching a buffer (the API is used before any file is
--- open), or returns the running one.
---@param root string
---@return integer? client_id
---@return string? err
function M.start_detached(root)
  for _, c in ipairs(M.clients()) do
    if c.root_dir and vim.fs.normalize(c.root_dir) == root then
      return c.id
    end
  end
  local cfg = M.client_config(root)
  local why = unstartable(cfg.cmd)
  if why then
    return nil, why
  end
  local ok, id
  if has_011 then
    ok, id = pcall(vim.lsp.start, cfg, { attach = false })
  else
    ok, id = pcall(vim.lsp.start_client, cfg)
  end
  if not ok or not id then
    return nil, ('agentls: could not start %s: %s'):format(table.concat(cfg.cmd, ' '), ok and 'no client' or id)
  end
  return id
end

--- Running agentls clients (filter as for vim.lsp.get_clients; name is always agentls).
---@param filter table?
---@return vim.lsp.Client[]
function M.clients(filter)
  return vim.lsp.get_clients(vim.tbl_extend('force', filter or {}, { name = M.name }))
end

--- The client for bufnr (default: the current buffer): the one attached to it, else for a file
--- buffer the one whose root holds the file (none: nil, so that one is started for its root),
--- else any agentls client.
---@param bufnr integer?
---@return vim.lsp.Client?
function M.pick(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local attached = M.clients({ bufnr = bufnr })[1]
  if attached then
    return attached
  end
  if not M.is_file_buffer(bufnr) then
    return M.clients()[1]
  end
  local name = vim.fs.normalize(vim.api.nvim_buf_get_name(bufnr))
  for _, c in ipairs(M.clients()) do
    local root = c.root_dir and vim.fs.normalize(c.root_dir)
    if root and (name:sub(1, #root + 1) == root .. '/' or root == '/') then
      return c
    end
  end
  return nil
end

--- A client for the API to talk to: the one serving bufnr, any running one, else a new one for
--- the buffer (when it is a file) or for the current directory. client_id picks one client.
---@param bufnr integer?
---@param client_id integer?
---@return vim.lsp.Client?
---@return string? err
function M.ensure(bufnr, client_id)
  if client_id then
    local c = vim.lsp.get_client_by_id(client_id)
    if not c then
      return nil, ('agentls: no client with id %d'):format(client_id)
    end
    return c
  end
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = M.pick(bufnr)
  if client then
    return client
  end
  local id, err
  if M.is_file_buffer(bufnr) then
    id, err = M.attach(bufnr)
  else
    id, err = M.start_detached(M.dir_root(vim.fn.getcwd()))
  end
  local c = id and vim.lsp.get_client_by_id(id)
  if not c then
    return nil, err or 'agentls: no client'
  end
  return c
end

--- The command that starts the server: a running client's, else the configured one.
---@return string[]
function M.cmd()
  local c = M.clients()[1]
  if c and type(c.config.cmd) == 'table' then
    return c.config.cmd
  end
  return M.configured().cmd
end

---@param client vim.lsp.Client
local function is_stopped(client)
  if has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- Calls fn() once the client has answered initialize, or fn(err) if it stops or does not answer
--- within timeout_ms.
---@param client vim.lsp.Client
---@param fn fun(err: string?)
---@param timeout_ms integer?
function M.when_ready(client, fn, timeout_ms)
  if client.initialized then
    return fn()
  end
  local deadline = vim.uv.now() + (timeout_ms or config.get().timeout_ms)
  local timer = assert(vim.uv.new_timer())
  timer:start(
    10,
    10,
    vim.schedule_wrap(function()
      if timer:is_closing() then
        return
      end
      local err
      if client.initialized then
        err = nil
      elseif is_stopped(client) then
        err = 'agentls: the server exited before it was initialized'
      elseif vim.uv.now() > deadline then
        err = 'agentls: the server did not answer initialize in time'
      else
        return
      end
      timer:stop()
      timer:close()
      fn(err)
    end)
  )
end

---@param client vim.lsp.Client
local function request(client, method, params, handler)
  if has_011 then
    return client:request(method, params, handler)
  end
  return client.request(method, params, handler)
end

---@param client vim.lsp.Client
local function cancel_request(client, id)
  if has_011 then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

---@class agentls.Handle
---@field cancel fun() cancels the request; the callback gets (nil, 'cancelled') unless it already ran

--- Sends workspace/executeCommand {command, arguments = {argument}} and calls cb(result, err)
--- exactly once. Pending buffer changes are sent first (Neovim flushes didChange before a
--- request), so the server sees what the user sees.
---@param command string
---@param argument table
---@param cb fun(result: any, err: string?)
---@param opts {bufnr: integer?, client_id: integer?, timeout_ms: integer?}?
---@return agentls.Handle
function M.execute(command, argument, cb, opts)
  opts = opts or {}
  local done, cancelled, client, request_id = false, false, nil, nil
  local function finish(result, err)
    if done then
      return
    end
    done = true
    if client and pending[client.id] then
      pending[client.id][finish] = nil
    end
    cb(result, err)
  end
  local handle = {
    cancel = function()
      if done then
        return
      end
      cancelled = true
      if client and request_id then
        pcall(cancel_request, client, request_id)
      end
      finish(nil, 'cancelled')
    end,
  }

  local err
  client, err = M.ensure(opts.bufnr, opts.client_id)
  if not client then
    vim.schedule(function()
      finish(nil, err)
    end)
    return handle
  end
  M.when_ready(client, function(ready_err)
    if cancelled then
      return
    end
    if ready_err then
      return finish(nil, ready_err)
    end
    local params = { command = command, arguments = { argument } }
    local ok, id = request(client, 'workspace/executeCommand', params, function(rpc_err, result)
      if rpc_err then
        return finish(nil, ('%s: %s'):format(command, rpc_err.message or vim.inspect(rpc_err)))
      end
      finish(result)
    end)
    if not ok then
      return finish(nil, 'agentls: the client has stopped')
    end
    request_id = id
    if not done then
      pending[client.id] = pending[client.id] or {}
      pending[client.id][finish] = true
    end
  end, opts.timeout_ms)
  return handle
end

--- Runs an asynchronous function synchronously: start(cb) must call cb once; waits at most
--- timeout_ms (processing events meanwhile) and cancels on timeout.
---@param start fun(cb: fun(a: any, b: any)): agentls.Handle
---@param timeout_ms integer?
---@return any, any
function M.wait(start, timeout_ms)
  timeout_ms = timeout_ms or config.get().timeout_ms
  local done, a, b = false, nil, nil
  local handle = start(function(x, y)
    done, a, b = true, x, y
  end)
  if not vim.wait(timeout_ms, function()
    return done
  end, 5) then
    handle.cancel()
    return nil, ('agentls: no answer within %d ms'):format(timeout_ms)
  end
  return a, b
end

return M
