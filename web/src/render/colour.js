// colour.js — the colour scales of every map and their legends: viridis for weights in [lo, hi]
// (attention probabilities), blue–white–red around 0 for signed values (projections, scores).
// Lookup tables of 256 RGB entries, built once from d3-scale-chromatic.
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';
import { el } from '../kit.js';

/** '#rrggbb' or 'rgb(r, g, b)' -> [r, g, b] */
function parseColour(c) {
  const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(c);
  return m ? [m[1], m[2], m[3]].map(Number) : [1, 3, 5].map((p) => parseInt(c.slice(p, p + 2), 16));
}

function table(interpolate) {
  const t = new Uint8ClampedArray(256 * 3);
  for (let k = 0; k < 256; k++) t.set(parseColour(interpolate(k / 255)), k * 3);
  return t;
}

/** The two scales. `prob`: viridis from lo to hi. `signed`: blue (−m) – white (0) – red (+m). */
export const SCALES = Object.freeze({
  prob: { lut: table(interpolateViridis), css: interpolateViridis, name: 'viridis' },
  signed: { lut: table((t) => interpolateRdBu(1 - t)), css: (t) => interpolateRdBu(1 - t), name: 'blue–white–red' },
});

/**
 * The range a map is drawn over: `prob` [0, hi] (hi: the largest value, or 1), `signed` [−m, m]
 * with m the largest magnitude. `data` from `offset`, `count` values.
 * @returns {[number, number]}
 */
export function rangeOf(colour, data, offset = 0, count = data.length - offset) {
  let m = 0;
  for (let k = offset; k < offset + count; k++) m = Math.max(m, Math.abs(data[k]));
  return colour === 'signed' ? [-(m || 1), m || 1] : [0, m || 1];
}

/** Index (0..255) of v on [lo, hi]. */
export const level = (v, lo, hi) => Math.min(255, Math.max(0, Math.round(((v - lo) / (hi - lo || 1)) * 255)));

/** The CSS colour of v on a scale over [lo, hi] (table cells, legends). */
export function cssColour(colour, v, lo, hi) {
  return SCALES[colour].css(level(v, lo, hi) / 255);
}

/** Whether text on the colour of v should be dark (light background). */
export function needsDarkText(colour, v, lo, hi) {
  const [r, g, b] = SCALES[colour].lut.subarray(level(v, lo, hi) * 3, level(v, lo, hi) * 3 + 3);
  return 0.299 * r + 0.587 * g + 0.114 * b > 140;
}

const rgbCache = new Map();
/** Any CSS colour (e.g. a custom property's value) -> [r, g, b], via a 1×1 canvas. */
export function cssToRgb(colour, fallback = [128, 128, 128]) {
  if (!colour) return fallback;
  if (rgbCache.has(colour)) return rgbCache.get(colour);
  const c = document.createElement('canvas');
  c.width = c.height = 1;
  const g = c.getContext('2d');
  if (!g) return fallback;
  g.fillStyle = '#808080';
  g.fillStyle = colour;  // ignored when not a valid colour
  g.fillRect(0, 0, 1, 1);
  const rgb = [...g.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  rgbCache.set(colour, rgb);
  return rgb;
}

/** Eleven CSS stops of a scale, low to high (legend gradients, SVG export). */
export const stops = (colour) => Array.from({ length: 11 }, (_, k) => SCALES[colour].css(k / 10));

/** A short number for a legend end: 1, 0.42, −3.1. */
export const legendNumber = (v) => (v === 0 ? '0' : String(Number(v.toPrecision(2))).replace('-', '−'));

/**
 * The legend of a scale: "label: lo [gradient] hi".
 * @param {'prob' | 'signed'} colour
 * @param {[number, number]} range
 * @param {string} label e.g. 'attention weight'
 */
export function legend(colour, [lo, hi], label) {
  const bar = el('span', { className: `legend-bar legend-${colour}`, 'aria-hidden': 'true' });
  return el('span', { className: 'legend', dataset: { role: 'legend' } },
    label ? `${label}: ` : '', legendNumber(lo), bar, legendNumber(hi));
}
