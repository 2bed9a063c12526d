// web-results-file.test.mjs: "Save results" writes a lab's table as CSV (RFC 4180 quoting, UTF-8 with a
// byte-order mark) and JSON (rows keyed by their headings, with the lab's facts); the browser test
// lab-a.test.mjs saves a real table.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO } from './helpers.mjs';

const { toCsv, toJson } = await import(pathToFileURL(path.join(REPO, 'web/src/labs/results-file.js')).href);

test('CSV: a header row, then the rows; a comma, a quote or a line break is quoted', () => {
  const csv = toCsv({ columns: ['heads', 'held-out loss (nats, mean ± sd)', 'note'], rows: [['1', '0.313 ± 0.012', 'a, b'], ['2', '0.026', 'say "x"\nthen']] });
  assert.ok(csv.startsWith('\ufeff'), 'UTF-8 byte-order mark');
  assert.equal(csv.slice(1), 'heads,"held-out loss (nats, mean ± sd)",note\r\n1,0.313 ± 0.012,"a, b"\r\n2,0.026,"say ""x""\nthen"\r\n');
});

test('JSON: the lab\'s facts, the columns, each row keyed by its heading', () => {
  const json = JSON.parse(toJson({ columns: ['layer', 'head', 'role'], rows: [['0', '2', 'previous-token head'], ['1', '0']] }, { lab: 'lab-induction', summary: 'done' }));
  assert.equal(json.lab, 'lab-induction');
  assert.equal(json.summary, 'done');
  assert.deepEqual(json.columns, ['layer', 'head', 'role']);
  assert.deepEqual(json.rows, [{ layer: '0', head: '2', role: 'previous-token head' }, { layer: '1', head: '0', role: '' }]);
});
