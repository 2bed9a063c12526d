// colour.js — the colour scales of every map and their legends: viridis for weights in [lo, hi]
// (attention probabilities), blue–white–red around 0 for signed values (projections, scores).
// Lookup tables of 256 RGB entries, built once from two colour tables that equal d3-scale-chromatic's
// (tests/node/web-colour.test.mjs): viridis's 256 colours (VIRIDIS_256, matplotlib's, CC0), and
// blue–white–red by straight lines between the 11 colours of ColorBrewer's RdBu (RDBU_11). Importing
// them from d3-scale-chromatic would bring its three other ramps and, for RdBu, d3-interpolate and
// d3-color into the first map's bundle (~11 KB gzip) for what is 1.6 KB of data.
import { el } from '../kit.js';

/** '#rrggbb' or 'rgb(r, g, b)' -> [r, g, b] */
function parseColour(c) {
  const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(c);
  return m ? [m[1], m[2], m[3]].map(Number) : [1, 3, 5].map((p) => parseInt(c.slice(p, p + 2), 16));
}

/** t in [0, 1] -> 'rgb(r, g, b)' by straight lines between the stops ('#rrggbb'). */
function piecewise(stopsHex) {
  const rgb = stopsHex.map(parseColour);
  return (t) => {
    const x = Math.min(1, Math.max(0, t)) * (rgb.length - 1), k = Math.min(rgb.length - 2, Math.floor(x)), f = x - k;
    const [r, g, b] = rgb[k].map((c, i) => Math.round(c + (rgb[k + 1][i] - c) * f));
    return `rgb(${r}, ${g}, ${b})`;
  };
}
/** viridis, 256 colours as 'rrggbb' hex triplets, dark blue to yellow. */
export const VIRIDIS_256 =
  '44015444025645045745055946075a46085c460a5d460b5e470d60470e61471063471164471365481467481668481769'
  + '48186a481a6c481b6d481c6e481d6f481f70482071482173482374482475482576482677482878482979472a7a472c7a'
  + '472d7b472e7c472f7d46307e46327e46337f463480453581453781453882443983443a83443b84433d84433e85423f85'
  + '4240864241864142874144874045884046883f47883f48893e49893e4a893e4c8a3d4d8a3d4e8a3c4f8a3c508b3b518b'
  + '3b528b3a538b3a548c39558c39568c38588c38598c375a8c375b8d365c8d365d8d355e8d355f8d34608d34618d33628d'
  + '33638d32648e32658e31668e31678e31688e30698e306a8e2f6b8e2f6c8e2e6d8e2e6e8e2e6f8e2d708e2d718e2c718e'
  + '2c728e2c738e2b748e2b758e2a768e2a778e2a788e29798e297a8e297b8e287c8e287d8e277e8e277f8e27808e26818e'
  + '26828e26828e25838e25848e25858e24868e24878e23888e23898e238a8d228b8d228c8d228d8d218e8d218f8d21908d'
  + '21918c20928c20928c20938c1f948c1f958b1f968b1f978b1f988b1f998a1f9a8a1e9b8a1e9c891e9d891f9e891f9f88'
  + '1fa0881fa1881fa1871fa28720a38620a48621a58521a68522a78522a88423a98324aa8325ab8225ac8226ad8127ad81'
  + '28ae8029af7f2ab07f2cb17e2db27d2eb37c2fb47c31b57b32b67a34b67935b77937b87838b9773aba763bbb753dbc74'
  + '3fbc7340bd7242be7144bf7046c06f48c16e4ac16d4cc26c4ec36b50c46a52c56954c56856c66758c7655ac8645cc863'
  + '5ec96260ca6063cb5f65cb5e67cc5c69cd5b6ccd5a6ece5870cf5773d05675d05477d1537ad1517cd2507fd34e81d34d'
  + '84d44b86d54989d5488bd6468ed64590d74393d74195d84098d83e9bd93c9dd93ba0da39a2da37a5db36a8db34aadc32'
  + 'addc30b0dd2fb2dd2db5de2bb8de29bade28bddf26c0df25c2df23c5e021c8e020cae11fcde11dd0e11cd2e21bd5e21a'
  + 'd8e219dae319dde318dfe318e2e418e5e419e7e419eae51aece51befe51cf1e51df4e61ef6e620f8e621fbe723fde725';
const viridis = (t) => `#${VIRIDIS_256.substr(Math.max(0, Math.min(255, Math.floor(t * 256))) * 6, 6)}`;

/** ColorBrewer RdBu, 11 classes, red (low) to blue (high). */
export const RDBU_11 = Object.freeze(['#67001f', '#b2182b', '#d6604d', '#f4a582', '#fddbc7', '#f7f7f7',
  '#d1e5f0', '#92c5de', '#4393c3', '#2166ac', '#053061']);
const blueWhiteRed = piecewise([...RDBU_11].reverse());

function table(interpolate) {
  const t = new Uint8ClampedArray(256 * 3);
  for (let k = 0; k < 256; k++) t.set(parseColour(interpolate(k / 255)), k * 3);
  return t;
}

/** The two scales. `prob`: viridis from lo to hi. `signed`: blue (−m) – white (0) – red (+m). */
export const SCALES = Object.freeze({
  prob: { lut: table(viridis), css: viridis, name: 'viridis' },
  signed: { lut: table(blueWhiteRed), css: blueWhiteRed, name: 'blue–white–red' },
});

/**
 * The range a map is drawn over: `prob` [0, hi] (hi: the largest value, or 1), `signed` [−m, m]
 * with m the largest finite magnitude. `data` from `offset`, `count` values.
 * @returns {[number, number]}
 */
export function rangeOf(colour, data, offset = 0, count = data.length - offset) {
  let m = 0;
  for (let k = offset; k < offset + count; k++) if (Number.isFinite(data[k])) m = Math.max(m, Math.abs(data[k]));
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
