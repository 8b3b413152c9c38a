-- The client side of the wire contract: how this editor answers the requests agentls sends.
--
--   agentls/saveDocument {uri}    -> {saved}   write the buffer (advertised as
--                                              capabilities.experimental.agentls.saveDocument)
--   window/showMessageRequest                  through vim.ui.select (approvals: Allow / Allow for
--                                              this session / Deny)
--   workspace/applyEdit                        Neovim's own handler, after a version check that
--                                              refuses an edit made against an older buffer
--   agentls/diagnostics, agentls/languageRequest, agentls/editorState
--                                              the editor's other language servers and state
--                                              (agentls.languages)
--
-- Server requests run inside a coroutine (Neovim 0.10 and later), so a handler may yield while
-- the user answers and return the result when resumed.

local M = {}

--- The loaded buffer showing the file at uri, if any (never creates one).
---@param uri string
---@return integer?
function M.loaded_buffer(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  fname = vim.fs.normalize(fname)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.fs.normalize(vim.api.nvim_buf_get_name(bufnr)) == fname then
      return bufnr
    end
  end
  return nil
end

--- agentls/saveDocument: write the buffer to its file. The server asks only after an edit of a
--- buffer that had no unsaved changes; {saved = false} when there is no such buffer or :write
--- failed (read-only file, a BufWritePre error, ...).
---@param params {uri: string}
---@return {saved: boolean}
function M.save_document(_, params)
  local bufnr = type(params) == 'table' and type(params.uri) == 'string' and M.loaded_buffer(params.uri)
  if not bufnr then
    return { saved = false }
  end
  local ok = pcall(vim.api.nvim_buf_call, bufnr, function()
    vim.cmd('silent keepalt keepjumps write')
  end)
  return { saved = ok and not vim.bo[bufnr].modified }
end

--- window/showMessageRequest through vim.ui.select; the chosen action, or null when dismissed.
---@param params lsp.ShowMessageRequestParams
function M.show_message_request(_, params)
  local actions = type(params) == 'table' and params.actions or nil
  if type(actions) ~= 'table' or #actions == 0 then
    vim.notify(params and params.message or '', vim.log.levels.INFO, { title = 'agentls' })
    return vim.NIL
  end
  local co, is_main = coroutine.running()
  if not co or is_main then
    -- Not in a coroutine: there is nobody to resume, so answer "dismissed" rather than block.
    return vim.NIL
  end
  vim.ui.select(actions, {
    prompt = 'agentls: ' .. (params.message or ''),
    kind = 'agentls.message',
    format_item = function(action)
      return ((action.title or ''):gsub('\r?\n', ' '))
    end,
  }, function(choice)
    -- scheduled: vim.ui.select may call back before this coroutine has yielded
    vim.schedule(function()
      coroutine.resume(co, choice or vim.NIL)
    end)
  end)
  return coroutine.yield()
end

--- The first TextDocumentEdit whose buffer has changed since the version the edit was made for.
---@param edit lsp.WorkspaceEdit?
---@return string? reason
function M.stale_reason(edit)
  local changes = type(edit) == 'table' and edit.documentChanges or nil
  if type(changes) ~= 'table' then
    return nil
  end
  for _, change in ipairs(changes) do
    local doc = type(change) == 'table' and change.textDocument or nil
    local version = doc and doc.version
    if type(version) == 'number' and version > 0 and type(doc.uri) == 'string' then
      local bufnr = M.loaded_buffer(doc.uri)
      local current = bufnr and vim.lsp.util.buf_versions[bufnr]
      if type(current) == 'number' and current ~= version then
        return ('%s is at version %d, the edit was made for version %d'):format(
          vim.uri_to_fname(doc.uri),
          current,
          version
        )
      end
    end
  end
  return nil
end

--- The loaded buffers a workspace edit changes.
---@param edit lsp.WorkspaceEdit?
---@return integer[]
local function edited_buffers(edit)
  local uris = {}
  if type(edit) == 'table' then
    for _, change in ipairs(type(edit.documentChanges) == 'table' and edit.documentChanges or {}) do
      if type(change) == 'table' and type(change.textDocument) == 'table' then
        uris[#uris + 1] = change.textDocument.uri
      end
    end
    for uri in pairs(type(edit.changes) == 'table' and edit.changes or {}) do
      uris[#uris + 1] = uri
    end
  end
  local bufs = {}
  for _, uri in ipairs(uris) do
    local bufnr = type(uri) == 'string' and M.loaded_buffer(uri)
    if bufnr then
      bufs[#bufs + 1] = bufnr
    end
  end
  return bufs
end

--- Closes the current undo block of each buffer (see :help undo-break), so an agent's edit is
--- one undo step of its own, apart from what the user typed before and after.
---@param bufs integer[]
local function break_undo(bufs)
  for _, bufnr in ipairs(bufs) do
    pcall(vim.api.nvim_buf_call, bufnr, function()
      vim.cmd('let &undolevels = &undolevels')
    end)
  end
end

--- workspace/applyEdit: refuse a stale edit (Neovim's own handler only prints a message and
--- reports it applied), else apply it with Neovim's handler as one undo step per buffer.
function M.apply_edit(err, params, ctx, cfg)
  local edit = type(params) == 'table' and params.edit or nil
  local reason = M.stale_reason(edit)
  if reason then
    return { applied = false, failureReason = reason }
  end
  local bufs = edited_buffers(edit)
  break_undo(bufs)
  local result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, cfg)
  break_undo(bufs)
  return result
end

--- The handlers table for a client configuration.
---@return table<string, function>
function M.all()
  local all = {
    ['agentls/saveDocument'] = M.save_document,
    ['window/showMessageRequest'] = M.show_message_request,
    ['workspace/applyEdit'] = M.apply_edit,
  }
  -- agentls/diagnostics, agentls/languageRequest, agentls/editorState (agentls.languages)
  local languages = require('agentls.languages')
  languages.watch()
  for method, fn in pairs(languages.handlers()) do
    all[method] = fn
  end
  return all
end

return M
