-- The editor's own language servers, for agents: the client side of the requests agentls sends so
-- that its tools can ask the other clients attached to a buffer (gopls, pyright, ...) what they
-- know, and see what the user sees (docs/PROTOCOL.md, "The editor's language servers").
--
--   agentls/diagnostics {uri?, version?, waitMs?}  -> {items = {{uri, diagnostics}}, fresh}
--   agentls/languageRequest {method, params}        -> the merged answers of the other clients
--   agentls/editorState {}                          -> open documents, the current window
--
-- Positions agentls sends and receives count in the agentls client's offset encoding; each other
-- client gets them in its own (the line's text converts them), and its answers come back converted.
-- Server requests run inside a coroutine (Neovim 0.10 and later): a handler yields while the other
-- servers answer.

local M = {}

local has_011 = vim.fn.has('nvim-0.11') == 1

--- No language server in the editor handles the document (the error agentls expects).
M.NO_SERVER = -32001

--- The loaded buffer of a file URI, if any (never creates one).
---@param uri string
---@return integer?
local function loaded_buffer(uri)
  return require('agentls.handlers').loaded_buffer(uri)
end

local function byte_of(line, index, enc)
  if enc == 'utf-8' then
    return math.min(index, #line)
  end
  local ok, b
  if has_011 then
    ok, b = pcall(vim.str_byteindex, line, enc, index, false)
  else
    ok, b = pcall(vim.str_byteindex, line, index, enc == 'utf-16')
  end
  return ok and b or #line
end

local function index_of(line, byte, enc)
  byte = math.min(byte, #line)
  if enc == 'utf-8' then
    return byte
  end
  if has_011 then
    local ok, i = pcall(vim.str_utfindex, line, enc, byte, false)
    return ok and i or byte
  end
  local ok, u32, u16 = pcall(vim.str_utfindex, line, byte)
  if not ok then
    return byte
  end
  return enc == 'utf-16' and u16 or u32
end

--- A converter of positions between two encodings, reading each document's lines once (the
--- buffer when loaded, else the file). nil when the encodings are the same.
local function converter(from, to)
  if from == to then
    return nil
  end
  local files = {}
  local function line(uri, row)
    local bufnr = loaded_buffer(uri)
    if bufnr then
      return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
    end
    if files[uri] == nil then
      local ok, fname = pcall(vim.uri_to_fname, uri)
      files[uri] = ok and vim.fn.filereadable(fname) == 1 and vim.fn.readfile(fname) or false
    end
    return files[uri] and files[uri][row + 1] or ''
  end
  local c = {}
  function c.pos(uri, p)
    if type(p) ~= 'table' or type(p.line) ~= 'number' then
      return p
    end
    local l = line(uri, p.line)
    return { line = p.line, character = index_of(l, byte_of(l, p.character or 0, from), to) }
  end
  function c.range(uri, r)
    if type(r) ~= 'table' then
      return r
    end
    return { start = c.pos(uri, r.start), ['end'] = c.pos(uri, r['end']) }
  end
  return c
end

--- Converts the ranges of a WorkspaceEdit in place.
local function convert_edit(c, edit)
  if type(edit) ~= 'table' then
    return edit
  end
  for uri, edits in pairs(type(edit.changes) == 'table' and edit.changes or {}) do
    for _, te in ipairs(edits) do
      te.range = c.range(uri, te.range)
    end
  end
  for _, dc in ipairs(type(edit.documentChanges) == 'table' and edit.documentChanges or {}) do
    if type(dc) == 'table' and type(dc.textDocument) == 'table' then
      for _, te in ipairs(dc.edits or {}) do
        te.range = c.range(dc.textDocument.uri, te.range)
      end
    end
  end
  return edit
end

--- Converts the positions of a request's params in place (doc_uri: its document).
local function convert_params(c, params, doc_uri)
  if not c or type(params) ~= 'table' then
    return params
  end
  if params.position then
    params.position = c.pos(doc_uri, params.position)
  end
  if params.range then
    params.range = c.range(doc_uri, params.range)
  end
  if type(params.edit) == 'table' then -- a code action sent back to be resolved
    convert_edit(c, params.edit)
  end
  return params
end

--- Converts the positions of one answer in place, by method.
local function convert_result(c, method, result, doc_uri)
  if not c or type(result) ~= 'table' then
    return result
  end
  local function location(l)
    if type(l) ~= 'table' then
      return
    end
    if l.targetUri then
      l.targetRange = c.range(l.targetUri, l.targetRange)
      l.targetSelectionRange = c.range(l.targetUri, l.targetSelectionRange)
      l.originSelectionRange = l.originSelectionRange and c.range(doc_uri, l.originSelectionRange)
    elseif l.uri then
      l.range = c.range(l.uri, l.range)
    end
  end
  if method == 'textDocument/hover' or method == 'textDocument/prepareRename' then
    if result.range then
      result.range = c.range(doc_uri, result.range)
    elseif result.start then
      return c.range(doc_uri, result)
    end
  elseif method == 'textDocument/rename' then
    convert_edit(c, result)
  elseif method == 'textDocument/codeAction' or method == 'codeAction/resolve' then
    local list = method == 'codeAction/resolve' and { result } or result
    for _, a in ipairs(list) do
      if type(a) == 'table' then
        convert_edit(c, a.edit)
        a.diagnostics = nil -- the client's own; agentls does not need them back
      end
    end
  elseif method == 'workspace/symbol' then
    for _, s in ipairs(result) do
      if type(s) == 'table' then
        location(s.location)
      end
    end
  else -- definition, typeDefinition, implementation, references
    if result.uri or result.targetUri then
      location(result)
    else
      for _, l in ipairs(result) do
        location(l)
      end
    end
  end
  return result
end

--- Runs start(done) and waits, yielding the current coroutine, until done(...) is called; returns
--- what done got.
local function await(start)
  local co, is_main = coroutine.running()
  if not co or is_main then
    error('agentls: this request needs Neovim 0.10 or later (server requests in a coroutine)')
  end
  local vals
  start(function(...)
    if vals then
      return
    end
    vals = { n = select('#', ...), ... }
    vim.schedule(function()
      coroutine.resume(co)
    end)
  end)
  coroutine.yield()
  return unpack(vals, 1, vals.n)
end

local function client_request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function supports(client, method, bufnr)
  if method == 'codeAction/resolve' then
    local p = client.server_capabilities.codeActionProvider
    return type(p) == 'table' and p.resolveProvider == true
  end
  if has_011 then
    return client:supports_method(method, bufnr)
  end
  return client.supports_method(method, { bufnr = bufnr })
end

--- The clients other than agentls that serve method for bufnr (every buffer when nil).
local function other_clients(method, bufnr)
  local out = {}
  for _, client in ipairs(vim.lsp.get_clients(bufnr and { bufnr = bufnr } or nil)) do
    if client.name ~= 'agentls' and supports(client, method, bufnr) then
      out[#out + 1] = client
    end
  end
  return out
end

--- The clients other than agentls that serve method for a file no buffer shows: those whose
--- workspace holds it (a server answers for the files of its workspace from disk).
local function clients_for_file(method, uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return {}
  end
  local out = {}
  for _, client in ipairs(vim.lsp.get_clients()) do
    if client.name ~= 'agentls' and supports(client, method, nil) then
      local roots = { client.root_dir }
      for _, wf in ipairs(client.workspace_folders or {}) do
        roots[#roots + 1] = vim.uri_to_fname(wf.uri)
      end
      for _, root in pairs(roots) do
        if type(root) == 'string' and fname:sub(1, #root + 1) == vim.fs.normalize(root) .. '/' then
          out[#out + 1] = client
          break
        end
      end
    end
  end
  return out
end

local function agentls_encoding(ctx)
  local c = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  return c and c.offset_encoding or 'utf-16'
end

--- The diagnostics of one client for a range of bufnr, as that client published them (for a
--- code action's context).
local function client_diagnostics(client, bufnr, range)
  local out = {}
  local ok, ns = pcall(vim.lsp.diagnostic.get_namespace, client.id, false)
  if not ok then
    return out
  end
  local first, last = range.start.line, range['end'].line
  for _, d in ipairs(vim.diagnostic.get(bufnr, { namespace = ns })) do
    local lsp_d = d.user_data and d.user_data.lsp
    if lsp_d and d.lnum <= last and (d.end_lnum or d.lnum) >= first then
      out[#out + 1] = lsp_d
    end
  end
  return out
end

--- agentls/languageRequest: asks every other client of the document (or, for
--- workspace/executeCommand, the one named by agentlsServer) and merges their answers.
function M.language_request(_, params, ctx)
  if type(params) ~= 'table' or type(params.method) ~= 'string' then
    return nil, vim.lsp.rpc_response_error(vim.lsp.protocol.ErrorCodes.InvalidParams, 'method is missing')
  end
  local method, p = params.method, params.params
  if p == nil or p == vim.NIL then
    p = vim.empty_dict()
  end
  local enc = agentls_encoding(ctx)
  local doc_uri = type(p.textDocument) == 'table' and p.textDocument.uri or nil
  local bufnr = doc_uri and loaded_buffer(doc_uri) or nil
  local clients
  local target = p.agentlsServer
  if method == 'codeAction/resolve' then
    target = target or (type(p) == 'table' and p.agentlsServer)
  end
  if target ~= nil and target ~= vim.NIL then
    local c = vim.lsp.get_client_by_id(target)
    clients = c and { c } or {}
    p.agentlsServer = nil
  elseif doc_uri and not bufnr then
    clients = clients_for_file(method, doc_uri)
  else
    clients = other_clients(method, bufnr)
  end
  if #clients == 0 then
    return nil,
      vim.lsp.rpc_response_error(
        M.NO_SERVER,
        ('no language server in Neovim handles %s for %s'):format(method, doc_uri or 'this workspace')
      )
  end
  if method == 'workspace/executeCommand' then
    local fn = vim.lsp.commands[p.command]
    if fn then -- a command Neovim itself runs
      fn(p, { client_id = clients[1].id, bufnr = bufnr })
      return vim.NIL
    end
  end
  local answers = await(function(done)
    local pending, got = #clients, {}
    for _, client in ipairs(clients) do
      local cp = vim.deepcopy(p)
      local c = converter(enc, client.offset_encoding)
      convert_params(c, cp, doc_uri)
      if method == 'textDocument/codeAction' and bufnr and type(cp.context) == 'table' then
        cp.context.diagnostics = client_diagnostics(client, bufnr, p.range)
      end
      local ok = client_request(client, method, cp, function(err, result)
        got[#got + 1] = { client = client, err = err, result = result }
        pending = pending - 1
        if pending == 0 then
          done(got)
        end
      end, bufnr)
      if not ok then
        got[#got + 1] = { client = client, err = { message = client.name .. ' is not running' } }
        pending = pending - 1
      end
    end
    if pending == 0 then
      done(got)
    end
  end)
  local merged, first_err, any = {}, nil, false
  local single = method == 'textDocument/rename'
    or method == 'textDocument/prepareRename'
    or method == 'codeAction/resolve'
    or method == 'workspace/executeCommand'
  for _, a in ipairs(answers) do
    if a.err then
      first_err = first_err or a.err
    elseif a.result ~= nil and a.result ~= vim.NIL then
      local r = convert_result(converter(a.client.offset_encoding, enc), method, a.result, doc_uri)
      if single then
        return r
      end
      any = true
      if method == 'textDocument/codeAction' then
        for _, action in ipairs(r) do
          action.agentlsServer = a.client.id
          merged[#merged + 1] = action
        end
      elseif vim.islist(r) then
        vim.list_extend(merged, r)
      else
        merged[#merged + 1] = r
      end
    end
  end
  if not any and first_err then
    return nil, vim.lsp.rpc_response_error(first_err.code or -32803, first_err.message or tostring(first_err))
  end
  if single then
    return vim.NIL
  end
  return merged
end

-- When each buffer's diagnostics last changed: bufnr -> {seq, version (buffer version then)}.
local changed = {}
-- The newest document version a server published diagnostics for: bufnr -> version.
local published = {}
local seq = 0
local waiters = {}

local function watch_diagnostics()
  if M._watching then
    return
  end
  M._watching = true
  -- Servers that say which document version their diagnostics are for (gopls does) tell exactly
  -- when an update answers an edit: diagnostics of the version before the edit that arrive after
  -- it do not count. The handler Neovim uses is kept and called as it is.
  local publish = 'textDocument/publishDiagnostics'
  local inner = vim.lsp.handlers[publish]
  vim.lsp.handlers[publish] = function(err, result, ctx, cfg)
    local ret = inner(err, result, ctx, cfg)
    if type(result) == 'table' and type(result.uri) == 'string' and type(result.version) == 'number' then
      local ok, fname = pcall(vim.uri_to_fname, result.uri)
      local bufnr = ok and vim.fn.bufnr(fname) or -1
      if bufnr > 0 then
        published[bufnr] = math.max(published[bufnr] or 0, result.version)
        for w in pairs(waiters) do
          w()
        end
      end
    end
    return ret
  end
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    group = vim.api.nvim_create_augroup('agentls.diagnostics', { clear = true }),
    callback = function(ev)
      seq = seq + 1
      changed[ev.buf] = { seq = seq, version = vim.lsp.util.buf_versions[ev.buf] or 0 }
      for w in pairs(waiters) do
        w()
      end
    end,
  })
end

--- Starts following diagnostic changes (called when agentls attaches).
M.watch = watch_diagnostics

--- One diagnostic as an LSP Diagnostic in encoding enc.
local function to_lsp(bufnr, d, enc)
  local lines = vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_lines(bufnr, 0, -1, false) or {}
  local function pos(row, col)
    local line = lines[row + 1] or ''
    return { line = row, character = index_of(line, col or 0, enc) }
  end
  local lsp_d = d.user_data and d.user_data.lsp or {}
  local out = {
    range = { start = pos(d.lnum, d.col), ['end'] = pos(d.end_lnum or d.lnum, d.end_col or d.col) },
    severity = d.severity,
    message = d.message,
    source = d.source,
    code = d.code,
    data = lsp_d.data,
  }
  return out
end

--- agentls/diagnostics: the diagnostics of a document (or of every buffer that has some), after
--- waiting up to waitMs for an update made once the document reached version.
function M.diagnostics(_, params, ctx)
  params = type(params) == 'table' and params or {}
  watch_diagnostics()
  local enc = agentls_encoding(ctx)
  local bufs = {}
  local uri = type(params.uri) == 'string' and params.uri or nil
  local fresh = true
  if uri then
    local ok, fname = pcall(vim.uri_to_fname, uri)
    local bufnr = ok and vim.fn.bufnr(fname) or -1
    if bufnr > 0 then
      bufs[1] = bufnr
    end
    local wait = tonumber(params.waitMs) or 0
    -- Only a loaded buffer's servers see a change (Neovim does not tell them of disk changes by
    -- default): for another file there is no update to wait for. Nor for a buffer no other
    -- language server is attached to and no source has diagnostics for: nothing will update
    -- them, and its (empty) diagnostics are current, so the agent's write does not wait waitMs.
    local producer = bufnr > 0 and #vim.diagnostic.get(bufnr) > 0
    for _, client in ipairs(bufnr > 0 and vim.lsp.get_clients({ bufnr = bufnr }) or {}) do
      producer = producer or client.name ~= 'agentls'
    end
    if wait > 0 and bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) and not producer then
      wait = 0
    end
    if wait > 0 and bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) then
      local start_seq = seq
      local version = tonumber(params.version)
      local function satisfied()
        local c = changed[bufnr]
        if not c then
          return false
        end
        if version and published[bufnr] then
          return published[bufnr] >= version and c.version >= version
        end
        if version then
          return c.version >= version
        end
        return c.seq > start_seq
      end
      if not satisfied() then
        fresh = await(function(done)
          local timer = vim.uv.new_timer()
          local function finish(v)
            waiters[done] = nil
            if timer and not timer:is_closing() then
              timer:stop()
              timer:close()
            end
            done(v)
          end
          waiters[done] = function()
            if satisfied() then
              finish(true)
            end
          end
          timer:start(wait, 0, function()
            vim.schedule(function()
              finish(false)
            end)
          end)
        end)
      end
    elseif wait > 0 then
      fresh = false
    end
  else
    local seen = {}
    for _, d in ipairs(vim.diagnostic.get(nil)) do
      if not seen[d.bufnr] then
        seen[d.bufnr] = true
        bufs[#bufs + 1] = d.bufnr
      end
    end
  end
  local items = {}
  for _, bufnr in ipairs(bufs) do
    local ds = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      ds[#ds + 1] = to_lsp(bufnr, d, enc)
    end
    items[#items + 1] = { uri = uri or vim.uri_from_bufnr(bufnr), diagnostics = ds }
  end
  return { items = items, fresh = fresh }
end

--- agentls/editorState: the loaded file buffers and the current window.
function M.editor_state(_, _, ctx)
  local enc = agentls_encoding(ctx)
  local lsp = require('agentls.lsp')
  local docs = {}
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].buflisted and lsp.is_file_buffer(bufnr) then
      docs[#docs + 1] = {
        uri = vim.uri_from_bufnr(bufnr),
        languageId = vim.bo[bufnr].filetype,
        version = vim.lsp.util.buf_versions[bufnr] or vim.api.nvim_buf_get_changedtick(bufnr),
        dirty = vim.bo[bufnr].modified,
      }
    end
  end
  local state = { documents = docs }
  local win = vim.api.nvim_get_current_win()
  local bufnr = vim.api.nvim_win_get_buf(win)
  if lsp.is_file_buffer(bufnr) then
    local function pos(row, col) -- row 1-based, col 0-based bytes
      local line = vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ''
      return { line = row - 1, character = index_of(line, col, enc) }
    end
    local cursor = vim.api.nvim_win_get_cursor(win)
    local active = { uri = vim.uri_from_bufnr(bufnr), cursor = pos(cursor[1], cursor[2]), selections = {} }
    local mode = vim.api.nvim_get_mode().mode
    if mode == 'v' or mode == 'V' or mode == '\22' then
      local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
      if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then
        a, b = b, a
      end
      local s, e
      if mode == 'V' then
        s = pos(a[2], 0)
        local last = vim.api.nvim_buf_get_lines(bufnr, b[2] - 1, b[2], false)[1] or ''
        e = pos(b[2], #last)
      else
        s = pos(a[2], a[3] - 1)
        local last = vim.api.nvim_buf_get_lines(bufnr, b[2] - 1, b[2], false)[1] or ''
        -- the character under the end of a charwise selection is selected
        local width = vim.str_utf_end and (vim.str_utf_end(last, b[3]) + 1) or 1
        e = pos(b[2], math.min(b[3] - 1 + width, #last))
      end
      active.selections[1] = { start = s, ['end'] = e }
    end
    vim.api.nvim_win_call(win, function()
      local top, bottom = vim.fn.line('w0'), vim.fn.line('w$')
      active.visibleRange = { start = { line = top - 1, character = 0 }, ['end'] = { line = bottom - 1, character = 0 } }
    end)
    state.active = active
  end
  return state
end

--- The handlers of this module, by method.
function M.handlers()
  return {
    ['agentls/diagnostics'] = M.diagnostics,
    ['agentls/languageRequest'] = M.language_request,
    ['agentls/editorState'] = M.editor_state,
  }
end

return M
