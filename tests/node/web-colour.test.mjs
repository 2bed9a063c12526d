// The colour scales of the maps (web/src/render/colour.js): blue–white–red is ColorBrewer's RdBu as
// d3-scale-chromatic gives it, drawn through its 11 colours; viridis is d3's (and matplotlib's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpolateViridis, schemeRdBu } from 'd3-scale-chromatic';
import { RDBU_11, SCALES, VIRIDIS_256, cssColour } from '../../web/src/render/colour.js';

const rgbOf = (lut, k) => [...lut.subarray(k * 3, k * 3 + 3)];
const hex = (c) => [1, 3, 5].map((p) => parseInt(c.slice(p, p + 2), 16));

test('RDBU_11 is d3-scale-chromatic\'s schemeRdBu[11]', () => {
  assert.deepEqual([...RDBU_11], schemeRdBu[11]);
});

test('the signed scale runs blue (-m), white (0), red (+m) through the 11 colours', () => {
  const lut = SCALES.signed.lut;
  assert.deepEqual(rgbOf(lut, 0), hex('#053061'), 'lowest: the darkest blue');
  assert.deepEqual(rgbOf(lut, 255), hex('#67001f'), 'highest: the darkest red');
  const mid = rgbOf(lut, 128);
  assert.ok(mid.every((c) => c > 235), `the middle is near white: ${mid}`);
  assert.equal(cssColour('signed', 0, -1, 1), SCALES.signed.css(128 / 255));
});

test('the probability scale is d3\'s viridis, colour for colour', () => {
  for (let k = 0; k <= 1000; k++) assert.equal(SCALES.prob.css(k / 1000), interpolateViridis(k / 1000), `t = ${k / 1000}`);
  for (const k of [0, 64, 200, 255]) assert.deepEqual(rgbOf(SCALES.prob.lut, k), hex(interpolateViridis(k / 255)));
  assert.equal(VIRIDIS_256.length, 256 * 6);
});
