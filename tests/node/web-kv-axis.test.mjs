// The KV-cache chart's axis arithmetic (web/src/render/kv-axis.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binaryTickExponents, spreadLabels } from '../../web/src/render/kv-axis.js';

test('the largest value always has a tick (regression: no tick above 32 GiB for a 320 GiB cache)', () => {
  // 1 KiB (2^10) .. 512 GiB (2^39), 8 px per power of two: k = 5, anchored at the top.
  const e = binaryTickExponents(10, 39, 8);
  assert.equal(e.at(-1), 39, 'a tick at the top of the axis');
  assert.ok(e.some((x) => x > 35), 'a tick above 32 GiB (2^35)');
  assert.deepEqual(e, [14, 19, 24, 29, 34, 39]);
  for (let i = 1; i < e.length; i++) assert.ok((e[i] - e[i - 1]) * 8 >= 26, 'labels 26 px apart');
});

test('every power of two when there is room', () => {
  assert.deepEqual(binaryTickExponents(10, 14, 40), [10, 11, 12, 13, 14]);
});

test('labels that would overlap are pushed apart and stay in the box', () => {
  const ys = [100, 104, 300];
  const out = spreadLabels(ys, 14, 0, 400);
  assert.equal(out[0], 100);
  assert.ok(out[1] - out[0] >= 14, `second label moved below the first: ${out}`);
  assert.equal(out[2], 300);
  const low = spreadLabels([395, 398], 14, 0, 400);
  assert.ok(low.every((y) => y <= 400 - 7) && Math.abs(low[1] - low[0]) >= 14, `kept inside: ${low}`);
});
