// results-file.js — "Save results": a lab's table as a teacher keeps it, CSV (one header row, then the
// table's rows as the page shows them) or JSON (the same rows under their column headings, with the
// lab, its settings and its verdict). Imported on the first click (labs/table.js), so that no lab's
// chunk carries it. Pure but for the download (tests/node/web-results-file.test.mjs).
import { downloadBlob } from '../kit.js';

/** A heading cell's words: its first line, then its smaller second line in brackets ("held-out loss (nats, mean ± sd)"). */
export function headingText(th) {
  const parts = [...th.childNodes].map((n) => n.textContent.replace(/\s+/g, ' ').trim()).filter(Boolean);
  return parts.length > 1 ? `${parts[0]} (${parts.slice(1).join(', ')})` : parts[0] ?? '';
}

/** { columns: string[], rows: string[][] } of a table element: its headings and its body's cells as shown. */
export function readTable(table) {
  const columns = [...table.querySelectorAll('thead th')].map(headingText);
  const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent.replace(/\s+/g, ' ').trim()));
  return { columns, rows };
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
const field = (s) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** CSV text, with a byte-order mark so that spreadsheets read its UTF-8 (Hindi, ±, →) as such. */
export function toCsv({ columns, rows }) {
  return `\ufeff${[columns, ...rows].map((r) => r.map((c) => field(String(c))).join(',')).join('\r\n')}\r\n`;
}

/** JSON text: the lab's facts (`meta`), then the rows as objects keyed by their column headings. */
export function toJson({ columns, rows }, meta = {}) {
  return `${JSON.stringify({ ...meta, columns, rows: rows.map((r) => Object.fromEntries(columns.map((c, k) => [c, r[k] ?? '']))) }, null, 2)}\n`;
}

/**
 * Saves a table as `${name}.csv` or `${name}.json`.
 * @param {'csv' | 'json'} format
 * @param {HTMLTableElement} table
 * @param {string} name  the file name without extension
 * @param {object} meta  for JSON: the lab, its settings, its verdict
 * @param {HTMLElement} near  where the download link is attached
 */
export function saveResults(format, table, name, meta, near) {
  const data = readTable(table);
  const text = format === 'csv' ? toCsv(data) : toJson(data, meta);
  downloadBlob(new Blob([text], { type: format === 'csv' ? 'text/csv;charset=utf-8' : 'application/json' }), `${name}.${format}`, near);
  return text;
}
