// table.js — the labs' tables (results, head scores, the weights-and-cache budget): a caption, one
// header row and rows of cells, in a box that scrolls sideways on a phone (focusable, named); a results
// table has "Save results" (CSV or JSON: labs/results-file.js, imported on the first click).
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';
import { scrollRegion } from '../render/scroll-region.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks

/**
 * A cell: text (string or number), or { text?, children?, header?, className?, dataset?, colSpan? }
 * (header: a row header, th scope="row"). A row: an array of cells, or { cells, className?, dataset? }.
 */
function cell(c) {
  if (c == null || typeof c !== 'object') return el('td', null, String(c ?? '—'));
  const props = { className: c.className, dataset: c.dataset, colspan: c.colSpan, ...(c.header ? { scope: 'row' } : {}) };
  return el(c.header ? 'th' : 'td', props, ...(c.children ?? [String(c.text ?? '—')]));
}
let tables = 0;
const row = (r) => (Array.isArray(r) ? el('tr', null, ...r.map(cell)) : el('tr', { className: r.className, dataset: r.dataset }, ...r.cells.map(cell)));

/**
 * @param {{ label: string, caption?: string | Node, columns: (string | Node | (string | Node)[])[],
 *           dataset?: Record<string, string>, bodyDataset?: Record<string, string>, hidden?: boolean, i18n?: object,
 *           save?: { name: () => string, meta: () => object } }} o
 *   label: the scroll box's accessible name; dataset: the box's data attributes, bodyDataset the tbody's;
 *   i18n: the element's words (its scroll hint; the other words are the caller's, in that language);
 *   save: a results table's "Save results": its file name (no extension) and, for JSON, the lab's facts
 * @returns {{ element: HTMLElement, tbody: HTMLElement, setRows(rows: any[]): void, show(on: boolean): void }}
 */
export function createLabTable({ label, caption, columns, dataset, bodyDataset, hidden = false, i18n = EN, save = null }) {
  // The caption sits above the box that scrolls (it wraps on a phone) and names the table.
  const id = `lab-table-${++tables}`;
  const tbody = el('tbody', { dataset: bodyDataset });
  const table = el('table', { className: 'lab-table', 'aria-labelledby': caption ? id : null },
    el('thead', null, el('tr', null, ...columns.map((c) => el('th', { scope: 'col' }, ...[c].flat())))), tbody);
  const element = el('div', { className: 'lab-table-box', dataset, hidden }, caption ? el('p', { className: 'lab-table-caption', id }, caption) : null,
    scrollRegion(label, table, '', i18n), save ? saveResultsControl(table, save, label, i18n) : null);
  return {
    element,
    tbody,
    setRows(rows) { tbody.replaceChildren(...rows.map(row)); },
    show(on) { element.hidden = !on; },
  };
}

/** "Save results": a disclosure with CSV and JSON buttons, like "Save figure"; the file is made on the click. */
function saveResultsControl(table, { name, meta }, label, i18n) {
  const text = i18n.t('labs.saveResults');
  const said = i18n.t('labs.saveResultsOf', { text, what: label });
  const box = el('details', { className: 'save-figure save-results', dataset: { role: 'save-results' } }, el('summary', { title: said, 'aria-label': said }, text));
  for (const format of ['csv', 'json']) {
    box.append(el('button', { type: 'button', dataset: { saveResults: format }, onclick: async () => {
      const { saveResults } = await import('./results-file.js');
      saveResults(format, table, name(), meta(), box);
      box.open = false;
    } }, format.toUpperCase()));
  }
  return box;
}

/** A column heading with a second, smaller line: 'Validation' / 'bits / char'. */
export const twoLines = (top, bottom) => [top, el('small', null, bottom)];
