import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureText, resultText } from '../../src/result';

test('a result is its content', () => {
  assert.deepEqual(resultText('read_file', { content: '1\thello', isError: false }), { text: '1\thello', isError: false });
});

test('an empty result says so', () => {
  assert.equal(resultText('grep', { content: '', isError: false }).text, '(no output)');
});

test('a tool error is text the model can read, marked as an error', () => {
  const r = resultText('edit_file', { content: 'old_string matches 3 places; add context or pass replace_all', isError: true });
  assert.equal(r.isError, true);
  assert.equal(r.text, 'Error from edit_file: old_string matches 3 places; add context or pass replace_all');
});

test('a result without the contract shape is an error naming what came', () => {
  for (const raw of [null, undefined, 42, { isError: false }, { content: 7 }]) {
    const r = resultText('ls', raw);
    assert.equal(r.isError, true);
    assert.match(r.text, /^agentls: ls returned no result/);
  }
});

test('a failure before the tool ran names the tool and the cause', () => {
  assert.equal(failureText('bash', new Error('the agentls server is not running')), 'Error: agentls could not run bash: the agentls server is not running');
});
