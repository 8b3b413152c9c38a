import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILD_COMMANDS, findServer, INSTALL_STEPS, type PathProbe } from '../../src/serverPath';

function probe(executables: string[], gopath = '', gobin = '', extensionDir?: string): PathProbe {
  return {
    isExecutable: (p) => executables.includes(p),
    pathDirs: ['/usr/bin', '', '/opt/bin'],
    goEnv: () => ({ gobin, gopath }),
    home: '/home/u',
    extensionDir,
  };
}

test('the setting, then the binary bundled in the .vsix, then PATH', () => {
  const ext = '/home/u/.vscode/extensions/agentls.agentls-0.1.0-linux-x64';
  const all = ['/opt/bin/agentls', `${ext}/bin/agentls`, '/home/u/bin/agentls'];
  assert.equal(findServer('~/bin/agentls', probe(all, '', '', ext)).path, '/home/u/bin/agentls');
  const r = findServer('', probe(all, '', '', ext));
  assert.equal(r.path, `${ext}/bin/agentls`);
  assert.deepEqual(r.tried, [`${ext}/bin/agentls`]);
  // A universal .vsix (no binary inside): PATH.
  assert.equal(findServer('', probe(['/opt/bin/agentls'], '', '', ext)).path, '/opt/bin/agentls');
});

test('the not-found steps build from a clone, never go install of a module path', () => {
  assert.match(INSTALL_STEPS, /go install \.\/cmd\/agentls/);
  assert.match(INSTALL_STEPS, /\.vsix/);
  assert.doesNotMatch(INSTALL_STEPS + BUILD_COMMANDS, /@latest/);
});

test('agentls on PATH comes first', () => {
  const r = findServer('', probe(['/opt/bin/agentls', '/home/u/go/bin/agentls']));
  assert.equal(r.path, '/opt/bin/agentls');
  assert.deepEqual(r.tried, ['/usr/bin/agentls', '/opt/bin/agentls']);
});

test('then GOBIN, then each GOPATH entry, then ~/go/bin', () => {
  assert.equal(findServer('', probe(['/gb/agentls'], '/g1', '/gb')).path, '/gb/agentls');
  assert.equal(findServer('', probe(['/g2/bin/agentls'], '/g1:/g2')).path, '/g2/bin/agentls');
  assert.equal(findServer('', probe(['/home/u/go/bin/agentls'])).path, '/home/u/go/bin/agentls');
});

test('nothing found lists every place looked at', () => {
  const r = findServer('', probe([], '/g1'));
  assert.equal(r.path, undefined);
  assert.deepEqual(r.tried, ['/usr/bin/agentls', '/opt/bin/agentls', '/g1/bin/agentls']);
});

test('the setting wins: a path (with ~) or a name looked up on PATH', () => {
  assert.equal(findServer('~/bin/agentls', probe(['/home/u/bin/agentls', '/usr/bin/agentls'])).path, '/home/u/bin/agentls');
  assert.equal(findServer('agentls-dev', probe(['/opt/bin/agentls-dev'])).path, '/opt/bin/agentls-dev');
  assert.equal(findServer('/nope/agentls', probe(['/usr/bin/agentls'])).path, undefined);
});
