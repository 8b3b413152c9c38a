-- Options of the plugin: the defaults, and the merged table that setup() leaves behind.
-- Every other module reads options through get(); nothing here starts a process.

local M = {}

---@class agentls.Options
---@field cmd string[] command that starts the server on stdio
---@field root_markers string[] names whose nearest parent directory becomes the workspace root
---@field settings table? forwarded as initializationOptions and as the "agentls" configuration section
---@field on_attach fun(client: vim.lsp.Client, bufnr: integer)? called when a buffer attaches
---@field timeout_ms integer default bound for the *_sync functions
---@field debounce_ms integer delay before buffer changes are sent (Neovim's default is 150; the
---                   server waits for the change an agent's edit causes, so this is on the path
---                   of every edit_file)
---@field autostart boolean attach to file buffers as they are read (setup() only)
---@field navigation boolean false: leave definition, references and symbols to other servers

---@type agentls.Options
M.defaults = {
  cmd = { 'agentls', 'serve', '--stdio' },
  root_markers = { '.git' },
  settings = nil,
  on_attach = nil,
  timeout_ms = 10000,
  debounce_ms = 0,
  autostart = true,
  navigation = true,
}

--- This plugin's directory (editors/neovim of the agentls repository).
---@return string
function M.plugin_dir()
  local file = debug.getinfo(1, 'S').source:sub(2)
  return vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(file, ':p')))))
end

--- The default command: agentls from $PATH, else the binary the lazy.nvim build puts in this
--- plugin's bin/ (go build -o editors/neovim/bin/agentls ./cmd/agentls).
---@return string[]
function M.default_cmd()
  if vim.fn.executable('agentls') ~= 1 then
    local bundled = M.plugin_dir() .. '/bin/agentls'
    if vim.fn.executable(bundled) == 1 then
      return { bundled, 'serve', '--stdio' }
    end
  end
  return vim.deepcopy(M.defaults.cmd)
end

---@type agentls.Options
local current = vim.deepcopy(M.defaults)
local was_set = false
local default_resolved = false -- current.cmd is default_cmd()'s answer

local kinds = {
  cmd = 'table',
  root_markers = 'table',
  settings = 'table',
  on_attach = 'function',
  timeout_ms = 'number',
  debounce_ms = 'number',
  autostart = 'boolean',
  navigation = 'boolean',
}

--- Merges user options over the defaults (lists are replaced, not merged) and validates them.
---@param opts table?
---@return agentls.Options
function M.set(opts)
  opts = opts or {}
  for name, kind in pairs(kinds) do
    local v = opts[name]
    if v ~= nil and type(v) ~= kind then
      error(('agentls: option %s must be a %s, got %s'):format(name, kind, type(v)), 2)
    end
  end
  local merged = vim.deepcopy(M.defaults)
  merged.cmd = M.default_cmd()
  for k, v in pairs(opts) do
    merged[k] = v
  end
  current = merged
  was_set = true
  return current
end

--- True once setup() has been called.
---@return boolean
function M.is_set()
  return was_set
end

---@return agentls.Options
function M.get()
  if not was_set and not default_resolved then
    current.cmd = M.default_cmd()
    default_resolved = true
  end
  return current
end

return M
