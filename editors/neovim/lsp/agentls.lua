-- Configuration for Neovim 0.11+:  vim.lsp.enable('agentls')  (override with
-- vim.lsp.config('agentls', { cmd = ..., root_markers = ..., settings = { agentls = { ... } } })).
-- Attaches to buffers named after a file, rooted at the nearest root marker (default .git), else
-- at the file's directory. vim.lsp.enable attaches on FileType, so a file without a filetype is
-- attached only by require('agentls').setup().
local lsp = require('agentls.lsp')

---@type vim.lsp.Config
return {
  cmd = require('agentls.config').default_cmd(),
  root_markers = { '.git' },
  root_dir = function(bufnr, on_dir)
    if lsp.is_file_buffer(bufnr) then
      local ok, cfg = pcall(function()
        return vim.lsp.config.agentls
      end)
      local markers = ok and type(cfg) == 'table' and cfg.root_markers or { '.git' }
      on_dir(lsp.buffer_root(bufnr, markers))
    end
  end,
  -- the server waits for the didChange an agent's edit causes: send changes at once
  flags = { debounce_text_changes = 0 },
  capabilities = lsp.capabilities(),
  on_exit = lsp.on_exit,
  handlers = require('agentls.handlers').all(),
}
