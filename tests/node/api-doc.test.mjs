// api-doc.test.mjs: every `js` block of docs/api.md runs against dist/lib and prints exactly the
// `text` block under it (a block without one must run without throwing). A block that loads the
// module itself keeps its import (pointed at dist/lib); the others get `attn` from loadAttention().

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { LIB_DIR, REPO } from './helpers.mjs';

const DOC = path.join(REPO, 'docs', 'api.md');
const LIB = pathToFileURL(path.join(LIB_DIR, 'attention.mjs')).href;

/** [{ code, expected | null, line }] from the markdown. */
function examples(markdown) {
  const out = [];
  const re = /```js\n([\s\S]*?)```\n(?:```text\n([\s\S]*?)```\n)?/g;
  for (let m; (m = re.exec(markdown));) {
    out.push({ code: m[1], expected: m[2] ?? null, line: markdown.slice(0, m.index).split('\n').length });
  }
  return out;
}

const blocks = examples(fs.readFileSync(DOC, 'utf8'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-api-doc-'));

test('docs/api.md has runnable examples with their output', () => {
  assert.ok(blocks.length >= 8, `only ${blocks.length} js blocks`);
  assert.ok(blocks.filter((b) => b.expected !== null).length >= 8, 'examples need their expected output');
});

for (const [k, b] of blocks.entries()) {
  test(`docs/api.md example at line ${b.line}`, () => {
    const imports = /import \{ loadAttention \} from '[^']+';/;
    const code = imports.test(b.code)
      ? b.code.replace(imports, `import { loadAttention } from '${LIB}';`)
      : `import { loadAttention } from '${LIB}';\nconst attn = await loadAttention();\n${b.code}`;
    const file = path.join(dir, `example-${k}.mjs`);
    fs.writeFileSync(file, code);
    const r = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', file], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, `the example failed:\n${r.stderr}`);
    if (b.expected !== null) assert.equal(r.stdout, b.expected, `docs/api.md line ${b.line}: printed output differs`);
  });
}
