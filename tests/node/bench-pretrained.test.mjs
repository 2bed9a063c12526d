// The pretrained row of npm run bench (scripts/bench-pretrained.mjs) runs to the end on the
// SmolLM2-135M shape: its 64-token calls are over the core's synchronous cap, which the bench lifts.
// One timed call of each kind (no timing is asserted: the figures are the bench's, not a test's).
import test from 'node:test';
import assert from 'node:assert/strict';
import { benchPretrained, pretrainedRows } from '../../scripts/bench-pretrained.mjs';

test('the pretrained bench runs the SmolLM2-135M shape: prefill, decode and the floor', async () => {
  const r = await benchPretrained('simd', { prefill: 1, prefillWarm: 0, decode: 2, decodeWarm: 0 });
  assert.equal(r.params, 134515008);  // SmolLM2-135M's parameter count (tied head)
  assert.equal(r.weightBytes, 2 * r.params);
  for (const k of ['prefillMs', 'decodeMs', 'floorMs', 'copyGbs']) assert.ok(Number.isFinite(r[k]) && r[k] > 0, k);
  const { header, rows } = pretrainedRows([r]);
  assert.equal(rows[0].length, header.length);
});
