// tensor-plot.js — draws one tensor of the walkthrough: a matrix (rows, cols) or a stack of heads
// (heads, rows, cols) as small canvases, coloured blue (negative) – white – red (positive) around 0
// (or viridis for probabilities), with column bands (one per head) and a masked triangle in grey.
// Pointer and keyboard read cells: hover, or focus a plot and use the arrow keys (Home/End, PageUp/
// PageDown move between heads); each move calls onCell({ h, i, j }, value).
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';
import { el } from '../kit.js';
import { cssToRgb } from './mini-heatmap.js';

function lut(interpolate, reverse = false) {
  const t = new Uint8ClampedArray(256 * 3);
  for (let k = 0; k < 256; k++) {
    const c = interpolate(reverse ? 1 - k / 255 : k / 255);
    const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(c);
    const rgb = m ? [m[1], m[2], m[3]].map(Number) : [1, 3, 5].map((p) => parseInt(c.slice(p, p + 2), 16));
    t.set(rgb, k * 3);
  }
  return t;
}
const SIGNED = lut(interpolateRdBu, true); // low = blue, high = red
const PROB = lut(interpolateViridis);
const MAX_CANVAS = 480; // px: a plot is drawn at whole pixels per cell up to about this width

/** The largest |value| (signed) or 1 (probabilities): the colour scale's end. */
export function scaleEnd(data, colour) {
  if (colour === 'prob') return 1;
  let m = 0;
  for (const v of data) m = Math.max(m, Math.abs(v));
  return m || 1;
}

function drawCanvas(canvas, data, offset, rows, cols, { colour, end, bands, masked, maskRgb, gapRgb }) {
  const cs = Math.max(1, Math.min(12, Math.floor(MAX_CANVAS / cols)));
  const w = cols * cs, hgt = rows * cs;
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== hgt) canvas.height = hgt;
  const g = canvas.getContext('2d');
  if (!g) return;
  const img = g.createImageData(w, hgt);
  const px = img.data;
  const table = colour === 'prob' ? PROB : SIGNED;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      let rgb;
      if (masked && j > i) rgb = maskRgb;
      else {
        const v = data[offset + i * cols + j];
        const t = colour === 'prob' ? v / end : (v / end + 1) / 2;
        const k = Math.min(255, Math.max(0, Math.round(t * 255))) * 3;
        rgb = [table[k], table[k + 1], table[k + 2]];
      }
      for (let y = 0; y < cs; y++) {
        for (let x = 0; x < cs; x++) {
          const gap = bands && cs > 2 && x === 0 && j > 0 && j % bands === 0;
          const p = ((i * cs + y) * w + j * cs + x) * 4;
          const c = gap ? gapRgb : rgb;
          px[p] = c[0]; px[p + 1] = c[1]; px[p + 2] = c[2]; px[p + 3] = 255;
        }
      }
    }
  }
  g.putImageData(img, 0, 0);
}

/** A legend: "−m [blue-white-red] +m" or "0 [viridis] 1". */
function legend(colour, end) {
  const stops = Array.from({ length: 11 }, (_, k) => (colour === 'prob' ? interpolateViridis(k / 10) : interpolateRdBu(1 - k / 10)));
  const bar = el('span', { className: 'tp-legend-bar', 'aria-hidden': 'true', style: `background:linear-gradient(to right,${stops.join(',')})` });
  const lo = colour === 'prob' ? '0' : `−${end.toPrecision(2)}`;
  const hi = colour === 'prob' ? '1' : `+${end.toPrecision(2)}`;
  return el('span', 'tp-legend', lo, bar, hi);
}

/**
 * @param {{ key: string, label: string, kind: 'matrix' | 'heads', colour: 'signed' | 'prob', bands?: number,
 *           masked?: boolean, headLabel?: (h: number) => string }} spec
 * @param {{ shape: number[], data: Float32Array }} tensor
 * @param {(at: { h: number, i: number, j: number } | null, value?: number) => void} onCell
 * @param {{ bg?: string, grid?: string }} [theme]  ctx.theme(): the gap and mask colours
 * @param {string[]} [rowLabels]  a matrix's row labels (the tokens), shown left of it when rows are few
 * @returns {HTMLElement}
 */
export function tensorPlot(spec, tensor, onCell, theme = {}, rowLabels = null) {
  const heads = spec.kind === 'heads' ? tensor.shape[0] : 1;
  const rows = tensor.shape[spec.kind === 'heads' ? 1 : 0];
  const cols = tensor.shape[spec.kind === 'heads' ? 2 : 1];
  const end = scaleEnd(tensor.data, spec.colour);
  const shapeText = tensor.shape.join(' × ');
  const figure = el('figure', { className: `tp tp-${spec.kind}`, dataset: { tensor: spec.key } },
    el('figcaption', null, el('strong', null, spec.label), ` (${shapeText}) `, legend(spec.colour, end)));
  const grid = el('div', 'tp-grid');
  figure.append(grid);
  const maskRgb = cssToRgb(theme.grid, [200, 200, 200]);
  const gapRgb = cssToRgb(theme.bg, [255, 255, 255]);
  const cursor = { h: 0, i: 0, j: 0 };
  const boxes = [];

  const show = (at) => {
    for (const b of boxes) b.mark.hidden = true;
    if (!at) return onCell(null);
    const b = boxes[at.h];
    b.mark.hidden = false;
    b.mark.style.left = `${(at.j / cols) * 100}%`;
    b.mark.style.top = `${(at.i / rows) * 100}%`;
    b.mark.style.width = `${100 / cols}%`;
    b.mark.style.height = `${100 / rows}%`;
    onCell(at, tensor.data[(at.h * rows + at.i) * cols + at.j]);
  };

  for (let h = 0; h < heads; h++) {
    const canvas = el('canvas', { className: 'tp-canvas', tabindex: '0', role: 'img',
      'aria-label': `${spec.label}${heads > 1 ? `, ${spec.headLabel ? spec.headLabel(h) : `head ${h}`}` : ''}: ` +
        `${rows} rows by ${cols} columns. Arrow keys read the cells.` });
    canvas.style.aspectRatio = `${cols} / ${rows}`;
    drawCanvas(canvas, tensor.data, h * rows * cols, rows, cols,
      { colour: spec.colour, end, bands: spec.bands, masked: spec.masked, maskRgb, gapRgb });
    const mark = el('span', { className: 'tp-mark', hidden: true, 'aria-hidden': 'true' });
    const wrap = el('div', 'tp-wrap', canvas, mark);
    boxes.push({ canvas, mark });
    const cellOf = (e) => {
      const r = canvas.getBoundingClientRect();
      const j = Math.floor(((e.clientX - r.left) / r.width) * cols);
      const i = Math.floor(((e.clientY - r.top) / r.height) * rows);
      return i >= 0 && j >= 0 && i < rows && j < cols ? { h, i, j } : null;
    };
    canvas.addEventListener('pointermove', (e) => { const at = cellOf(e); if (at) { Object.assign(cursor, at); show(at); } });
    canvas.addEventListener('pointerdown', (e) => { const at = cellOf(e); if (at) { Object.assign(cursor, at); show(at); } });
    canvas.addEventListener('pointerleave', () => { if (document.activeElement !== canvas && canvas.getRootNode().activeElement !== canvas) show(null); });
    canvas.addEventListener('focus', () => { if (cursor.h !== h) Object.assign(cursor, { h, i: 0, j: 0 }); show({ ...cursor }); });
    canvas.addEventListener('blur', () => show(null));
    canvas.addEventListener('keydown', (e) => {
      const c = { ...cursor };
      if (e.key === 'ArrowRight') c.j = Math.min(cols - 1, c.j + 1);
      else if (e.key === 'ArrowLeft') c.j = Math.max(0, c.j - 1);
      else if (e.key === 'ArrowDown') c.i = Math.min(rows - 1, c.i + 1);
      else if (e.key === 'ArrowUp') c.i = Math.max(0, c.i - 1);
      else if (e.key === 'Home') c.j = 0;
      else if (e.key === 'End') c.j = cols - 1;
      else if (e.key === 'PageDown' && h + 1 < heads) { boxes[h + 1].canvas.focus(); e.preventDefault(); return; }
      else if (e.key === 'PageUp' && h > 0) { boxes[h - 1].canvas.focus(); e.preventDefault(); return; }
      else return;
      e.preventDefault();
      e.stopPropagation();  // arrows here move the cell, not the walkthrough's step
      Object.assign(cursor, c);
      show(c);
    });
    const labelled = heads === 1 && rowLabels && rows <= 32 && cols <= 40  // cells of >= 12 px: room for a label
      ? el('div', 'tp-labelled', el('div', { className: 'tp-rows', 'aria-hidden': 'true', style: `grid-template-rows:repeat(${rows},1fr)` },
        ...rowLabels.slice(0, rows).map((t) => el('span', null, t))), wrap)
      : wrap;
    grid.append(heads > 1
      ? el('div', 'tp-head', el('span', 'tp-head-label', spec.headLabel ? spec.headLabel(h) : `head ${h}`), wrap)
      : labelled);
  }
  return figure;
}
