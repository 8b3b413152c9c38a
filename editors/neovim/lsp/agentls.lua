-- Configuration for Neovim 0.11+:  vim.lsp.enable('agentls')  (override with
-- vim.lsp.config('agentls', { cmd = ..., settings = { agentls = { ... } } })).
-- Attaches to buffers named after a file, rooted at the nearest .git (or the file's directory).
-- vim.lsp.enable attaches on FileType, so a file without a filetype is attached only by setup().
local lsp = require('agentls.lsp')

---@type vim.lsp.Config
return {
  cmd = { 'agentls', 'serve', '--stdio' },
  root_dir = function(bufnr, on_dir)
    if lsp.is_file_buffer(bufnr) then
      on_dir(lsp.buffer_root(bufnr, { '.git' }))
    end
  end,
  capabilities = lsp.capabilities(),
  handlers = require('agentls.handlers').all(),
}
