import assert from 'node:assert/strict';
import { test } from 'node:test';
import { skeleton, skeletonText } from '../../src/args';

test('the skeleton holds the required properties, each with a value of its type', () => {
  const schema = {
    type: 'object',
    properties: {
      action: { enum: ['search', 'definition'], type: 'string' },
      path: { type: 'string' },
      limit: { type: 'integer', minimum: 1 },
      all: { type: 'boolean' },
      edits: { type: 'array' },
      opt: { type: 'string' },
      mode: { type: 'string', default: 'content' },
      nested: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    },
    required: ['path', 'action', 'limit', 'all', 'edits', 'mode', 'nested'],
  };
  assert.deepEqual(skeleton(schema), { path: '', action: 'search', limit: 1, all: false, edits: [], mode: 'content', nested: { a: 0 } });
  assert.deepEqual(Object.keys(skeleton(schema)), ['path', 'action', 'limit', 'all', 'edits', 'mode', 'nested']);
});

test('a schema without required properties gives an empty object', () => {
  assert.equal(skeletonText({ type: 'object', properties: {} }), '{}');
  assert.deepEqual(skeleton({}), {});
});
