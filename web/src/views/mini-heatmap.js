// mini-heatmap.js — small canvas heatmaps for the compare and decode views.
//
// A matrix is drawn at one canvas pixel per cell (ImageData) and scaled up by CSS
// (`width: 100%`, `image-rendering: pixelated`), so it follows the width of its container
// on any screen without redrawing. Colours: viridis over a fixed range (default 0..1), so
// several heatmaps side by side share one scale.
import { interpolateViridis } from 'd3-scale-chromatic';

// viridis as a 256-entry RGB lookup table (interpolateViridis returns '#rrggbb').
const LUT = new Uint8ClampedArray(256 * 3);
for (let i = 0; i < 256; i++) {
  const hex = interpolateViridis(i / 255);
  LUT[i * 3] = parseInt(hex.slice(1, 3), 16);
  LUT[i * 3 + 1] = parseInt(hex.slice(3, 5), 16);
  LUT[i * 3 + 2] = parseInt(hex.slice(5, 7), 16);
}

/** viridis colour of v in [lo, hi] as a CSS string (legends). */
export function viridis(v, lo = 0, hi = 1) {
  return interpolateViridis(Math.min(1, Math.max(0, (v - lo) / (hi - lo || 1))));
}

/** Any CSS colour (e.g. a custom property's value) -> [r, g, b], via a 1x1 canvas. */
const rgbCache = new Map();
export function cssToRgb(color, fallback = [128, 128, 128]) {
  if (!color) return fallback;
  if (rgbCache.has(color)) return rgbCache.get(color);
  const c = document.createElement('canvas');
  c.width = c.height = 1;
  const g = c.getContext('2d');
  if (!g) return fallback;
  g.fillStyle = '#808080';
  g.fillStyle = color; // ignored when not a valid colour
  g.fillRect(0, 0, 1, 1);
  const [r, gr, b] = g.getImageData(0, 0, 1, 1).data;
  const rgb = [r, gr, b];
  rgbCache.set(color, rgb);
  return rgb;
}

/**
 * Draws rows x cols values from `data` (row-major, starting at `offset`) into `canvas`.
 * @param {HTMLCanvasElement} canvas
 * @param {ArrayLike<number>} data
 * @param {number} rows
 * @param {number} cols
 * @param {{ offset?: number, lo?: number, hi?: number,
 *           masked?: (i: number, j: number) => boolean, maskColor?: string }} [options]
 *   masked cells (e.g. the causal upper triangle) are painted in maskColor (default: --grid).
 */
export function drawMiniHeatmap(canvas, data, rows, cols, options = {}) {
  const { offset = 0, lo = 0, hi = 1, masked = null } = options;
  if (canvas.width !== cols) canvas.width = cols;
  if (canvas.height !== rows) canvas.height = rows;
  const g = canvas.getContext('2d');
  if (!g || rows === 0 || cols === 0) return;
  const mask = masked
    ? cssToRgb(options.maskColor || getComputedStyle(canvas).getPropertyValue('--grid').trim(), [200, 200, 200])
    : null;
  const img = g.createImageData(cols, rows);
  const px = img.data;
  const scale = 255 / (hi - lo || 1);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const p = (i * cols + j) * 4;
      if (mask && masked(i, j)) {
        px[p] = mask[0]; px[p + 1] = mask[1]; px[p + 2] = mask[2];
      } else {
        const k = Math.min(255, Math.max(0, Math.round((data[offset + i * cols + j] - lo) * scale))) * 3;
        px[p] = LUT[k]; px[p + 1] = LUT[k + 1]; px[p + 2] = LUT[k + 2];
      }
      px[p + 3] = 255;
    }
  }
  g.putImageData(img, 0, 0);
}

/**
 * Creates a canvas for a mini heatmap: scaled by CSS to its container's width, crisp cells,
 * `aspect` = height / width of the displayed box (1 for an N x N matrix).
 */
export function createMiniCanvas(className, aspect = 1) {
  const c = document.createElement('canvas');
  c.className = className;
  c.style.display = 'block';
  c.style.width = '100%';
  c.style.imageRendering = 'pixelated';
  if (aspect) c.style.aspectRatio = String(1 / aspect);
  return c;
}

/**
 * The cell under a pointer event on a canvas drawn with drawMiniHeatmap: { i, j } or null.
 * @param {PointerEvent | MouseEvent} e
 */
export function cellAt(canvas, e) {
  const r = canvas.getBoundingClientRect();
  if (!r.width || !r.height) return null;
  const j = Math.floor(((e.clientX - r.left) / r.width) * canvas.width);
  const i = Math.floor(((e.clientY - r.top) / r.height) * canvas.height);
  if (i < 0 || j < 0 || i >= canvas.height || j >= canvas.width) return null;
  return { i, j };
}

/** A horizontal legend strip for the shared scale: "0 [viridis gradient] 1". */
export function createLegend(className, lo = 0, hi = 1, label = 'attention weight') {
  const el = document.createElement('div');
  el.className = className;
  el.style.cssText = 'display:flex;align-items:center;gap:.4em;font-size:.85em;color:var(--muted)';
  const stops = Array.from({ length: 11 }, (_, k) => interpolateViridis(k / 10)).join(',');
  const bar = document.createElement('span');
  bar.style.cssText = `display:inline-block;width:8em;height:.8em;border:1px solid var(--border);background:linear-gradient(to right,${stops})`;
  bar.setAttribute('aria-hidden', 'true');
  el.append(`${label}: ${lo}`, bar, String(hi));
  return el;
}
