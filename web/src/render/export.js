// export.js — "Save figure": one or more maps (render/heatmap.js figure()) as a PNG or an SVG file, on
// a white background with the titles, the tokens on both axes, band lines and the colour legend.
// SVG cells are vector rectangles up to MAX_SVG_RECTS cells in all, a pixel-exact embedded image
// above that (a 100-token map of 16 heads would otherwise be 160,000 elements).
import { downloadBlob } from '../kit.js';
import { SCALES, legendNumber, level, stops } from './colour.js';

const MAX_SVG_RECTS = 40000;
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const INK = '#1b1f24', MUTED = '#57606a', MASK = '#e3e6ea', PAD = 12, TITLE_H = 20, LEGEND_H = 36;

/** Where each part of a figure goes: one map per column, wrapped after `perRow`. */
function layoutOf(figures) {
  const perRow = Math.min(figures.length, 4);
  const cell = Math.max(3, Math.min(24, Math.floor(360 / Math.max(...figures.map((f) => Math.max(f.rows, f.cols))))));
  const labelled = (f) => cell >= 10 && f.rowLabels && f.rows <= 64;
  const rowW = Math.max(0, ...figures.map((f) => (labelled(f) ? Math.min(80, 7 * Math.max(...f.rowLabels.slice(0, f.rows).map((t) => String(t).length))) + 6 : 0)));
  const colH = Math.max(0, ...figures.map((f) => (cell >= 10 && f.colLabels && f.cols <= 64 ? Math.min(80, 7 * Math.max(...f.colLabels.slice(0, f.cols).map((t) => String(t).length))) + 6 : 0)));
  const boxW = rowW + Math.max(...figures.map((f) => f.cols * cell)) + PAD;
  const boxH = TITLE_H + Math.max(...figures.map((f) => f.rows * cell)) + colH + PAD;
  const rows = Math.ceil(figures.length / perRow);
  const places = figures.map((f, k) => ({ f, x: PAD + (k % perRow) * boxW + rowW, y: PAD + Math.floor(k / perRow) * boxH + TITLE_H }));
  return { cell, rowW, colH, places, width: PAD + perRow * boxW, height: PAD + rows * boxH + LEGEND_H, labelled };
}

const cellColour = (f, v) => {
  const k = level(v, f.range[0], f.range[1]) * 3, t = SCALES[f.colour].lut;
  return `rgb(${t[k]},${t[k + 1]},${t[k + 2]})`;
};
const valueAt = (f, i, j) => f.data[f.offset + i * f.cols + j];
const maskedAt = (f, i, j) => Boolean(f.masked) && (j > i || valueAt(f, i, j) === -Infinity);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** One map drawn at one pixel per cell, as a canvas (the PNG's cells and the SVG's large-map image). */
function pixels(f) {
  const c = document.createElement('canvas');
  c.width = f.cols;
  c.height = f.rows;
  const g = c.getContext('2d');
  const img = g.createImageData(f.cols, f.rows);
  const mask = [227, 230, 234];
  for (let i = 0; i < f.rows; i++) {
    for (let j = 0; j < f.cols; j++) {
      const p = (i * f.cols + j) * 4;
      const k = level(valueAt(f, i, j), f.range[0], f.range[1]) * 3, t = SCALES[f.colour].lut;
      const rgb = maskedAt(f, i, j) ? mask : [t[k], t[k + 1], t[k + 2]];
      img.data.set([...rgb, 255], p);
    }
  }
  g.putImageData(img, 0, 0);
  return c;
}

/** The figure as SVG text. */
export function toSvg(figures, { label = '' } = {}) {
  const L = layoutOf(figures);
  const vector = figures.reduce((n, f) => n + f.rows * f.cols, 0) <= MAX_SVG_RECTS;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${L.width}" height="${L.height}" viewBox="0 0 ${L.width} ${L.height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`];
  for (const { f, x, y } of L.places) {
    out.push(`<text x="${x}" y="${y - 6}" fill="${INK}" font-weight="600">${esc(f.title)}</text>`);
    if (vector) {
      for (let i = 0; i < f.rows; i++) {
        for (let j = 0; j < f.cols; j++) {
          const fill = maskedAt(f, i, j) ? MASK : cellColour(f, valueAt(f, i, j));
          out.push(`<rect x="${x + j * L.cell}" y="${y + i * L.cell}" width="${L.cell}" height="${L.cell}" fill="${fill}"/>`);
        }
      }
    } else {
      out.push(`<image x="${x}" y="${y}" width="${f.cols * L.cell}" height="${f.rows * L.cell}" preserveAspectRatio="none" ` +
        `style="image-rendering:pixelated" href="${pixels(f).toDataURL('image/png')}"/>`);
    }
    for (let b = f.bands; b && b < f.cols; b += f.bands) {
      out.push(`<line x1="${x + b * L.cell}" x2="${x + b * L.cell}" y1="${y}" y2="${y + f.rows * L.cell}" stroke="#fff" stroke-width="1"/>`);
    }
    if (L.labelled(f)) {
      f.rowLabels.slice(0, f.rows).forEach((t, i) => out.push(`<text x="${x - 4}" y="${y + (i + 0.5) * L.cell}" text-anchor="end" dominant-baseline="central" fill="${MUTED}">${esc(t)}</text>`));
    }
    if (L.colH && f.colLabels) {
      f.colLabels.slice(0, f.cols).forEach((t, j) => {
        const cx = x + (j + 0.5) * L.cell, cy = y + f.rows * L.cell + 4;
        out.push(`<text transform="translate(${cx} ${cy}) rotate(-90)" text-anchor="end" dominant-baseline="central" fill="${MUTED}">${esc(t)}</text>`);
      });
    }
  }
  const f0 = figures[0], ly = L.height - LEGEND_H + 8;
  out.push('<defs><linearGradient id="scale">', ...stops(f0.colour).map((c, k) => `<stop offset="${k * 10}%" stop-color="${c}"/>`), '</linearGradient></defs>');
  out.push(`<text x="${PAD}" y="${ly + 10}" fill="${MUTED}">${esc(label)}${label ? ': ' : ''}${legendNumber(f0.range[0])}</text>`);
  const lx = PAD + 8 * (label.length + 6);
  out.push(`<rect x="${lx}" y="${ly}" width="160" height="12" fill="url(#scale)" stroke="${MUTED}" stroke-width="0.5"/>`,
    `<text x="${lx + 166}" y="${ly + 10}" fill="${MUTED}">${legendNumber(f0.range[1])}</text>`, '</svg>');
  return out.join('\n');
}

/** The figure drawn on a canvas (scale 2 for sharp text), for PNG. */
export function toCanvas(figures, { label = '' } = {}) {
  const L = layoutOf(figures), s = 2;
  const c = document.createElement('canvas');
  c.width = L.width * s;
  c.height = L.height * s;
  const g = c.getContext('2d');
  g.scale(s, s);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, L.width, L.height);
  g.font = FONT;
  for (const { f, x, y } of L.places) {
    g.fillStyle = INK;
    g.fillText(f.title, x, y - 6);
    g.imageSmoothingEnabled = false;
    g.drawImage(pixels(f), x, y, f.cols * L.cell, f.rows * L.cell);
    g.strokeStyle = '#fff';
    for (let b = f.bands; b && b < f.cols; b += f.bands) {
      g.beginPath(); g.moveTo(x + b * L.cell, y); g.lineTo(x + b * L.cell, y + f.rows * L.cell); g.stroke();
    }
    g.fillStyle = MUTED;
    g.textBaseline = 'middle';
    if (L.labelled(f)) {
      g.textAlign = 'right';
      f.rowLabels.slice(0, f.rows).forEach((t, i) => g.fillText(String(t), x - 4, y + (i + 0.5) * L.cell));
    }
    if (L.colH && f.colLabels) {
      g.textAlign = 'right';
      f.colLabels.slice(0, f.cols).forEach((t, j) => {
        g.save(); g.translate(x + (j + 0.5) * L.cell, y + f.rows * L.cell + 4); g.rotate(-Math.PI / 2);
        g.fillText(String(t), 0, 0); g.restore();
      });
    }
    g.textAlign = 'left';
    g.textBaseline = 'alphabetic';
  }
  const f0 = figures[0], ly = L.height - LEGEND_H + 8;
  const text = `${label}${label ? ': ' : ''}${legendNumber(f0.range[0])}`;
  g.fillText(text, PAD, ly + 10);
  const lx = PAD + g.measureText(text).width + 6;
  const grad = g.createLinearGradient(lx, 0, lx + 160, 0);
  stops(f0.colour).forEach((col, k) => grad.addColorStop(k / 10, col));
  g.fillStyle = grad;
  g.fillRect(lx, ly, 160, 12);
  g.fillStyle = MUTED;
  g.fillText(legendNumber(f0.range[1]), lx + 166, ly + 10);
  return c;
}

/**
 * Saves figures as `<name>.png` or `<name>.svg`.
 * @param {'png' | 'svg'} format
 * @param {object[]} figures  heatmap figure() objects
 * @param {string} name  file name without extension
 * @param {HTMLElement} near  an element of the page (the download link is attached next to it)
 * @param {{ label?: string }} [options]  the legend's label
 */
export async function saveFigure(format, figures, name, near, options = {}) {
  if (format === 'svg') {
    downloadBlob(new Blob([toSvg(figures, options)], { type: 'image/svg+xml' }), `${name}.svg`, near);
    return;
  }
  const canvas = toCanvas(figures, options);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  downloadBlob(blob, `${name}.png`, near);
}
