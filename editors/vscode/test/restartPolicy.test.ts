import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestartPolicy } from '../src/restartPolicy';

test('restarts up to the limit inside the window, then gives up', () => {
  const p = new RestartPolicy(3, 1000);
  assert.deepEqual([p.crashed(0), p.crashed(10), p.crashed(20), p.crashed(30)], ['restart', 'restart', 'restart', 'give-up']);
});

test('crashes older than the window are forgotten', () => {
  const p = new RestartPolicy(2, 1000);
  p.crashed(0); p.crashed(100);
  assert.equal(p.crashed(1500), 'restart');
  assert.equal(p.recent, 1);
});

test('a manual restart resets the budget', () => {
  const p = new RestartPolicy(1, 1000);
  p.crashed(0);
  assert.equal(p.crashed(1), 'give-up');
  p.reset();
  assert.equal(p.crashed(2), 'restart');
});
