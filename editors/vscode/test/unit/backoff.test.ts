import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Backoff } from '../../src/backoff';

const opts = { initialMs: 1000, maxMs: 5000, resetAfterMs: 60000, maxAttempts: 5 };

test('delays double up to the maximum, then it gives up', () => {
  const b = new Backoff(opts);
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => b.next(10)), [1000, 2000, 4000, 5000, 5000, undefined]);
});

test('a server that ran long enough starts the delays over', () => {
  const b = new Backoff(opts);
  b.next(10);
  b.next(10);
  assert.equal(b.next(60000), 1000);
  assert.equal(b.crashes, 1);
});

test('reset starts over', () => {
  const b = new Backoff(opts);
  b.next(0);
  b.next(0);
  b.reset();
  assert.equal(b.next(0), 1000);
});
