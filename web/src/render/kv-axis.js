// kv-axis.js — the KV-cache chart's axis and label arithmetic, pure (tested in Node:
// tests/node/web-kv-axis.test.mjs).

/**
 * Which powers of two get a tick on a log-2 axis from 2^eMin to 2^eMax, `perPowerPx` pixels apart:
 * every k-th exponent with k the smallest of 1, 2, 3, 5, 10, 20 that leaves `minGapPx` between
 * labels, counted DOWN FROM THE TOP so the largest value always has a tick (a 320 GiB cache is not
 * left with 32 GiB as its highest label).
 * @returns {number[]} exponents, ascending
 */
export function binaryTickExponents(eMin, eMax, perPowerPx, minGapPx = 26) {
  const k = [1, 2, 3, 5, 10, 20].find((n) => n * perPowerPx >= minGapPx) ?? 40;
  const out = [];
  for (let e = eMax; e >= eMin; e -= k) out.push(e);
  return out.reverse();
}

/**
 * Vertical positions for labels that want to sit at `ys` (pixels, any order), each `h` tall, kept
 * within [top, bottom]: labels that would overlap are pushed apart, in order.
 * @returns {number[]} the label centres, in the order of `ys`
 */
export function spreadLabels(ys, h, top, bottom) {
  const order = ys.map((y, i) => [y, i]).sort((a, b) => a[0] - b[0]);
  const placed = [];
  for (const [y] of order) {
    const prev = placed.at(-1);
    placed.push(Math.max(y, top + h / 2, prev == null ? -Infinity : prev + h));
  }
  // Past the bottom: shift the whole run up.
  for (let i = placed.length - 1; i >= 0; i--) {
    const limit = i === placed.length - 1 ? bottom - h / 2 : placed[i + 1] - h;
    if (placed[i] > limit) placed[i] = limit;
  }
  const out = new Array(ys.length);
  order.forEach(([, i], k) => { out[i] = placed[k]; });
  return out;
}
