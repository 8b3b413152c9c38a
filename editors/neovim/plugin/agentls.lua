-- Commands only: nothing is loaded or started until one is used (setup() starts the server).
if vim.g.loaded_agentls then
  return
end
vim.g.loaded_agentls = true

vim.api.nvim_create_user_command('AgentlsTools', function()
  require('agentls.commands').tools()
end, { desc = 'agentls: list the tools (<CR> on one shows its schema)' })

vim.api.nvim_create_user_command('AgentlsCall', function(cmd)
  require('agentls.commands').call(cmd.args)
end, {
  nargs = '*',
  desc = 'agentls: call a tool, :AgentlsCall {tool} {json}',
  complete = function(arglead, cmdline)
    return require('agentls.commands').complete(arglead, cmdline)
  end,
})

vim.api.nvim_create_user_command('AgentlsStatus', function()
  require('agentls.commands').status()
end, { desc = 'agentls: server, folders and index state' })
