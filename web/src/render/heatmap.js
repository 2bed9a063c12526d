// heatmap.js — THE heatmap of the page: every attention map, score matrix and projection the views
// draw goes through it. It owns
//   - drawing: one canvas pixel per cell (ImageData), scaled by CSS with crisp edges, the causal mask
//     in the theme's grid colour, column bands (one per head) as lines over the cells;
//   - labels on both axes (tokens), shown when the cells are tall enough to read them;
//   - the pointer and keyboard cursor (arrows, Home/End, PageUp/PageDown to the next map of a group,
//     Enter/Space select the query row, Escape clears) and the read-out, announced (aria-live);
//   - the "Save figure" control: PNG and SVG (render/export.js), named after what the map shows.
// A view creates one per map and calls update() with new data; the DOM is built once per layout.
//
//   const map = createHeatmap({ title: 'head 2', colour: 'prob', masked: 'causal', readout, ... });
//   parent.append(map.element);
//   map.update({ data, offset: 2 * N * N, rows: N, cols: N, rowLabels: tokens, colLabels: tokens });
import { el } from '../kit.js';
import { SCALES, cssToRgb, level, rangeOf } from './colour.js';
import { saveControl } from './save-control.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

const MIN_LABEL_CELL = 11;  // px: row labels need a cell at least this tall

// Maps in the page, redrawn when the colour scheme changes (the mask is painted in the theme's colour).
const live = new Set();
// The theme's mask colour (--grid) per root (a playground's shadow root), read once per colour scheme:
// getComputedStyle on every draw would force a style recalculation of the page for each map drawn.
let maskColours = new WeakMap();
const MASK_FALLBACK = [200, 200, 200];
/** The mask colour for a map's element; a map not in the page yet gets the fallback (redrawn once it is). */
function maskColourOf(element) {
  if (!element.isConnected) return MASK_FALLBACK;
  const root = element.getRootNode();
  let rgb = maskColours.get(root);
  if (!rgb) {
    rgb = cssToRgb(getComputedStyle(element).getPropertyValue('--grid').trim(), MASK_FALLBACK);
    maskColours.set(root, rgb);
  }
  return rgb;
}
globalThis.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
  maskColours = new WeakMap();
  for (const map of live) {
    if (map.element.isConnected) map.redraw();
    else live.delete(map);
  }
});
const MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/**
 * A read-out line for a view: what the cursor of any of its maps points at, announced politely.
 * @returns {HTMLElement & { say(text: string): void }}
 */
export function createReadout(hint = '') {
  const p = el('p', { className: 'readout', role: 'status', 'aria-live': 'polite', dataset: { role: 'readout' } }, hint);
  p.say = (text) => { p.textContent = text || hint; };
  return p;
}

/**
 * @param {{
 *   title: string,                 caption and accessible name ('head 2', 'Q', 'MHA head 0')
 *   colour?: 'prob' | 'signed',    viridis over [0, hi] or blue–white–red around 0
 *   masked?: 'causal' | null,      keys after their query, and -Infinity (a score the core masked), are painted as masked
 *   bands?: number,                column band width (heads side by side), 0 = none
 *   cell?: number | 'fill',        px per cell (from maxWidth when a number is not given) or the container's width
 *   maxWidth?: number,             px, for the cell size (default 420)
 *   readout?: HTMLElement & { say(text: string): void },   where the cursor's cell is described
 *   describe?: (at: { i: number, j: number }, value: number) => string,   the read-out's text
 *   onSelect?: (row: number | null) => void,   Enter / click on a row (null: Escape)
 *   name?: { view: string, variant?: string, layer?: number, head?: number, what?: string },   file names
 *   save?: boolean,                show the "Save figure" control in the caption
 *   legendLabel?: string,          what the colours mean, in a saved figure ('attention weight')
 *   className?: string,
 *   dataset?: Record<string, string>,   data attributes of the canvas (e.g. { head: '2' })
 *   caption?: boolean,             false: no caption (a figure around the map has one)
 *   i18n?: object,                 the element's language (ctx.i18n; default English)
 *   keys?: string,                 the catalog key of what its keys do (for its accessible name)
 *   growBy?: number,               with cell 'fill': the bitmap's width grows this many columns at a time, for a map that
 *                                  gains a column per update (decode's strips); 0 / unset: exactly the map's columns
 * }} o
 */
export function createHeatmap(o) {
  const i18n = o.i18n ?? EN;
  const colour = o.colour ?? 'prob';
  const canvas = el('canvas', { className: 'hm-canvas', tabindex: '0', role: 'img', dataset: o.dataset });
  const cursorBox = el('span', { className: 'hm-cursor', hidden: true, 'aria-hidden': 'true' });
  const rowMark = el('span', { className: 'hm-row-mark', hidden: true, 'aria-hidden': 'true' });
  const bandsBox = el('span', { className: 'hm-bands', 'aria-hidden': 'true' });
  // The labels are the map's tokens: the learner's input (or a model's), not the page's words.
  const rowLabels = el('div', { className: 'hm-rows', 'aria-hidden': 'true', dataset: { text: 'input' } });
  const colLabels = el('div', { className: 'hm-cols', 'aria-hidden': 'true', dataset: { text: 'input' } });
  const plot = el('div', 'hm-plot', canvas, bandsBox, rowMark, cursorBox);
  const grid = el('div', 'hm-grid', rowLabels, plot, colLabels);
  const caption = el('figcaption', 'hm-cap', el('span', 'hm-title', o.title));
  if (o.save) caption.append(saveControl(() => [figure()], () => fileName(o.name), { label: o.legendLabel ?? '', text: i18n.t('maps.save'), what: o.title, i18n }));
  const element = el('figure', { className: `hm ${o.cell === 'fill' ? 'hm-fill' : 'hm-cells'} ${o.className ?? ''}` },
    o.caption === false ? null : caption, grid);
  let m = null;           // the matrix drawn: { data, offset, rows, cols, rowLabels, colLabels, range }
  let layout = '';
  const cursor = { i: 0, j: 0 };
  let selected = -1;
  const api = { element, update, select, figure, focus: () => canvas.focus(), destroy, moveCursor, group: [], redraw: () => m && draw() };
  api.group = [api];

  const value = (i, j) => m.data[m.offset + i * m.cols + j];
  const valid = (i, j) => m && i >= 0 && j >= 0 && i < m.rows && j < m.cols;

  function describe(at) {
    const v = value(at.i, at.j);
    if (o.describe) return o.describe(at, v);
    const r = m.rowLabels?.[at.i], c = m.colLabels?.[at.j];
    const masked = o.masked === 'causal' && at.j > at.i ? ' (masked)' : '';
    return `${o.title}: row ${at.i}${r != null ? ` “${r}”` : ''}, column ${at.j}${c != null ? ` “${c}”` : ''}: ${v.toFixed(3)}${masked}`;
  }

  function showCursor(at) {
    if (!at || !valid(at.i, at.j)) {
      cursorBox.hidden = true;
      return;
    }
    Object.assign(cursor, at);
    cursorBox.hidden = false;
    cursorBox.style.setProperty('--i', at.i);
    cursorBox.style.setProperty('--j', at.j);
    o.readout?.say(describe(at));
  }

  function cellOf(e) {
    const r = canvas.getBoundingClientRect();
    if (!m || !r.width || !r.height) return null;
    const at = { i: Math.floor(((e.clientY - r.top) / r.height) * m.rows), j: Math.floor(((e.clientX - r.left) / r.width) * m.cols) };
    return valid(at.i, at.j) ? at : null;
  }

  canvas.addEventListener('pointermove', (e) => showCursor(cellOf(e)));
  canvas.addEventListener('pointerdown', (e) => {
    const at = cellOf(e);
    if (!at) return;
    showCursor(at);
    o.onSelect?.(at.i);
  });
  canvas.addEventListener('pointerleave', () => { if (canvas.getRootNode().activeElement !== canvas) showCursor(null); });
  canvas.addEventListener('focus', () => showCursor({ ...cursor }));
  canvas.addEventListener('blur', () => showCursor(null));
  canvas.addEventListener('keydown', (e) => {
    if (!m) return;
    const c = { ...cursor };
    const mine = api.group.indexOf(api);
    if (MOVES[e.key]) {
      c.i = Math.min(m.rows - 1, Math.max(0, c.i + MOVES[e.key][0]));
      c.j = Math.min(m.cols - 1, Math.max(0, c.j + MOVES[e.key][1]));
    } else if (e.key === 'Home') c.j = 0;
    else if (e.key === 'End') c.j = m.cols - 1;
    else if ((e.key === 'PageDown' || e.key === 'PageUp') && api.group.length > 1) {
      const next = api.group[mine + (e.key === 'PageDown' ? 1 : -1)];
      e.preventDefault();
      e.stopPropagation();
      if (next) { next.moveCursor(c); next.focus(); }
      return;
    } else if ((e.key === 'Enter' || e.key === ' ') && o.onSelect) {
      e.preventDefault();
      o.onSelect(c.i);
      return;
    } else if (e.key === 'Escape' && o.onSelect) {
      o.onSelect(null);
      return;
    } else return;
    e.preventDefault();
    e.stopPropagation();  // arrows move the cell, not a step of the view around the map
    showCursor(c);
  });
  /** Puts the cursor at a cell (another map of the group hands it over with PageUp / PageDown). */
  function moveCursor(at) {
    if (m) Object.assign(cursor, { i: Math.min(at.i, m.rows - 1), j: Math.min(at.j, m.cols - 1) });
  }

  function cellSize() {
    if (typeof o.cell === 'number') return o.cell;
    return Math.max(4, Math.min(28, Math.floor((o.maxWidth ?? 420) / Math.max(m.rows, m.cols))));
  }

  function buildLayout() {
    const cell = o.cell === 'fill' ? 0 : cellSize();
    const key = JSON.stringify([m.rows, m.cols, cell, m.rowLabels, m.colLabels, o.bands]);
    if (key === layout) return;
    layout = key;
    grid.style.setProperty('--rows', m.rows);
    grid.style.setProperty('--cols', m.cols);
    if (cell) grid.style.setProperty('--cell', `${cell}px`);
    const readable = o.cell === 'fill' ? m.rows <= 32 : cell >= MIN_LABEL_CELL;
    rowLabels.hidden = !(m.rowLabels && readable);
    colLabels.hidden = !(m.colLabels && readable && m.cols <= 48);
    rowLabels.replaceChildren(...(rowLabels.hidden ? [] : m.rowLabels.slice(0, m.rows).map((t) => el('span', null, t))));
    colLabels.replaceChildren(...(colLabels.hidden ? [] : m.colLabels.slice(0, m.cols).map((t) => el('span', null, t))));
    const bands = o.bands && o.bands < m.cols ? Math.ceil(m.cols / o.bands) - 1 : 0;
    bandsBox.replaceChildren(...Array.from({ length: bands }, (_, k) => {
      const line = el('span');
      line.style.setProperty('--at', ((k + 1) * o.bands) / m.cols);
      return line;
    }));
    const labels = m.rowLabels ? ` (${m.rowLabels.slice(0, 3).join(', ')}${m.rows > 3 ? ', …' : ''})` : '';
    canvas.setAttribute('aria-label', `${i18n.t('maps.canvas', { title: o.title, rows: m.rows, cols: m.cols, labels })} ` +
      i18n.t(o.keys ?? (o.onSelect ? 'maps.canvasKeysSelect' : 'maps.canvasKeys')));
  }

  function draw() {
    const { rows, cols } = m;
    const width = bitmapWidth(cols, o.growBy);
    if (canvas.width !== width) canvas.width = width;
    if (canvas.height !== rows) canvas.height = rows;
    if (o.growBy) showFilledColumns(canvas);
    const g = canvas.getContext('2d');
    if (!g || !rows || !cols) return;
    const [lo, hi] = m.range;
    const lut = SCALES[colour].lut;
    const mask = o.masked ? maskColourOf(element) : null;
    const img = g.createImageData(cols, rows);
    const px = img.data;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const p = (i * cols + j) * 4;
        if (mask && (j > i || value(i, j) === -Infinity)) px.set(mask, p);  // a later key, or a score masked by the core
        else {
          const k = level(value(i, j), lo, hi) * 3;
          px[p] = lut[k]; px[p + 1] = lut[k + 1]; px[p + 2] = lut[k + 2];
        }
        px[p + 3] = 255;
      }
    }
    g.putImageData(img, 0, 0);
  }

  /**
   * Draws a matrix: rows × cols values of `data` from `offset`, row-major.
   * @param {{ data: ArrayLike<number>, offset?: number, rows: number, cols: number, rowLabels?: string[],
   *           colLabels?: string[], range?: [number, number] }} matrix
   */
  function update(matrix) {
    const offset = matrix.offset ?? 0;
    m = { ...matrix, offset, range: matrix.range ?? rangeOf(colour, matrix.data, offset, matrix.rows * matrix.cols) };
    buildLayout();
    draw();
    if (o.masked) {
      live.add(api);
      if (live.size > 256) for (const map of live) if (!map.element.isConnected && map !== api) live.delete(map);  // maps views dropped
    }
    // A map drawn before it is in the page cannot read the theme's mask colour yet: draw it again then.
    if (!element.isConnected && o.masked) requestAnimationFrame(() => { if (element.isConnected) draw(); });
    if (!cursorBox.hidden) showCursor({ ...cursor });
    select(selected);
  }

  /** Outlines one row (the selected query), or none (-1 / null). */
  function select(row) {
    selected = row == null ? -1 : row;
    rowMark.hidden = !(m && selected >= 0 && selected < m.rows);
    rowMark.style.setProperty('--i', Math.max(0, selected));
  }

  /** What export.js draws: the matrix, its labels and scale. */
  function figure() {
    return { title: o.title, colour, masked: o.masked ?? null, bands: o.bands ?? 0, ...m };
  }

  function destroy() {
    live.delete(api);
    element.remove();
  }
  return api;
}

/**
 * The canvas's bitmap width for a map of `cols` columns: `cols` itself, or with `growBy` the next multiple
 * of it. Setting a canvas's width reallocates and clears its bitmap and makes the page lay it out again:
 * a strip that gains a column on every update (a decode step) would pay that on every step, a capacity
 * that grows in steps pays it once every `growBy` columns (and shrinks back with a shorter map).
 */
function bitmapWidth(cols, growBy) {
  return growBy > 0 ? Math.max(1, Math.ceil(cols / growBy)) * growBy : cols;
}

/**
 * Shows only the drawn columns of a bitmap wider than the map (bitmapWidth): the element keeps its box
 * (width 100%, the aspect ratio of the map's columns and rows, so its labels, cursor and border stay where
 * they were), and object-fit: cover scales the bitmap to the box's height, left-aligned, so the drawn
 * columns fill the box and the spare ones fall outside it, unseen. The cells are those of a bitmap of only
 * the drawn columns to within a device pixel at some cell edges (the box's height is rounded in layout).
 */
function showFilledColumns(canvas) {
  if (canvas.style.objectFit !== 'cover') Object.assign(canvas.style, { objectFit: 'cover', objectPosition: 'left top' });
}

/** Joins maps into one keyboard group: PageUp / PageDown move between them in order. */
export function groupMaps(maps) {
  for (const map of maps) map.group = maps;
  return maps;
}

/**
 * A file name for a figure: attention-gqa-layer0-head3, walkthrough-q-layer0, ...
 * @param {{ view?: string, variant?: string, layer?: number, head?: number | string, what?: string } | undefined} name
 */
export function fileName(name = {}) {
  const parts = [name.view ?? 'attention', name.variant, name.what,
    name.layer != null ? `layer${name.layer}` : null, name.head === 'all' ? 'all-heads' : name.head != null ? `head${name.head}` : null];
  return parts.filter((p) => p != null && p !== '').join('-').replace(/[^\w.-]+/g, '-').toLowerCase();
}
