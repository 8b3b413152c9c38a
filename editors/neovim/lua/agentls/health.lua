-- :checkhealth agentls — the binary and its version, the Neovim version, the running clients and
-- the state of their symbol index.

local M = {}

--- The first line a command prints when it succeeds within two seconds.
---@param cmd string[]
---@return string?
local function first_line(cmd)
  local ok, obj = pcall(function()
    return vim.system(cmd, { text = true }):wait(2000)
  end)
  if not ok or obj.code ~= 0 then
    return nil
  end
  local line = vim.trim((obj.stdout or ''):match('^[^\n]*') or '')
  return line ~= '' and line or nil
end

function M.check()
  local health = vim.health
  local lsp = require('agentls.lsp')
  local config = require('agentls.config')

  health.start('agentls: Neovim')
  local v = vim.version()
  local version = ('%d.%d.%d'):format(v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. version)
  else
    health.error('Neovim ' .. version .. ' is too old', { 'agentls needs Neovim 0.10 or later' })
  end
  if config.is_set() then
    health.ok('setup() was called: file buffers attach as they are read')
  elseif vim.fn.has('nvim-0.11') == 1 then
    health.info("setup() was not called: buffers attach only through vim.lsp.enable('agentls')")
  else
    health.warn('setup() was not called', { "call require('agentls').setup() in your configuration" })
  end

  health.start('agentls: server binary')
  local cmd = lsp.cmd()
  local exe = cmd[1]
  if not exe or vim.fn.executable(exe) ~= 1 then
    health.error(('%s is not executable'):format(tostring(exe)), {
      'build it: go build -o ~/.local/bin/agentls ./cmd/agentls',
      ('or, as the lazy.nvim build does: go build -o %s/bin/agentls ./cmd/agentls'):format(
        require('agentls.config').plugin_dir()
      ),
      "or point setup({ cmd = { '/path/to/agentls', 'serve', '--stdio' } }) at it",
    })
  else
    local path = vim.fn.exepath(exe)
    local ver = first_line({ path, 'version' }) or first_line({ path, '--version' })
    health.ok(('%s found at %s%s'):format(exe, path, ver and (': ' .. ver) or ''))
    if not ver then
      health.info('its version is unknown (neither `agentls version` nor `agentls --version` answered)')
    end
  end

  health.start('agentls: clients')
  local clients = lsp.clients()
  if #clients == 0 then
    health.warn('no agentls client is running', { 'open a file; :AgentlsStatus shows the clients' })
    return
  end
  local agentls = require('agentls')
  for _, c in ipairs(clients) do
    local where = ('client %d for %s'):format(c.id, c.root_dir or '(no root)')
    if c.initialized then
      health.ok(where .. ' is running')
    else
      health.warn(where .. ' has not finished initializing')
    end
    local status, err = agentls.index_status_sync(3000, { client_id = c.id })
    if not status and tostring(err):find('unknown command', 1, true) then
      health.warn('index: this agentls has no symbol index (' .. tostring(err) .. ')')
    elseif not status then
      health.error('index: ' .. tostring(err))
    elseif type(status.error) == 'string' and status.error ~= '' then
      health.error('index: ' .. status.error)
    elseif status.state == 'ready' then
      health.ok(('index ready: %s files, %s symbols'):format(tostring(status.files), tostring(status.symbols)))
    else
      health.ok(('index %s: %s files, %s symbols so far'):format(
        tostring(status.state),
        tostring(status.files),
        tostring(status.symbols)
      ))
    end
  end
end

return M
