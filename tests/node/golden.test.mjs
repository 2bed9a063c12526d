// golden.test.mjs: forward() against the reference outputs of tests/fixtures/attention_golden.json
// (written by scripts/gen_fixtures.py), for both builds. A missing or malformed fixture fails.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { BUILDS, REPO, assertClose, decodeF32, load } from './helpers.mjs';

const FIXTURE = path.join(REPO, 'tests', 'fixtures', 'attention_golden.json');
const TOLERANCE = 1e-4; // max|got - ref| / max|ref|, per tensor

/** @returns {{ fixture?: any, error?: Error }} */
function readFixture() {
  try {
    const fixture = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));
    if (!Array.isArray(fixture?.cases)) throw new Error('it has no `cases` array');
    return { fixture };
  } catch (error) {
    return { error };
  }
}

const { fixture, error } = readFixture();

test('the golden fixture exists and has cases for every variant', () => {
  assert.ok(!error, `cannot use ${FIXTURE} (run \`npm run fixtures\`): ${error?.message}`);
  assert.equal(fixture.cases.length, 20, 'the fixture has 20 cases (scripts/gen_fixtures.py)');
  const variants = new Set(fixture.cases.map((c) => c.spec?.variant));
  for (const v of ['mha', 'mqa', 'gqa', 'mla']) assert.ok(variants.has(v), `no case for variant '${v}'`);
  const tol = fixture.tolerance?.relative ?? fixture.tolerance;
  if (typeof tol === 'number') assert.ok(tol <= TOLERANCE, `fixture tolerance ${tol} is looser than ${TOLERANCE}`);
});

for (const { simd, name } of BUILDS) {
  describe(`golden forward (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    for (const c of fixture?.cases ?? []) {
      test(c.name, () => {
        const x = decodeF32(c.x);
        const weights = Object.fromEntries(Object.entries(c.weights).map(([k, v]) => [k, decodeF32(v)]));
        const { seqLen: N, nHeads: H } = c.spec;
        const result = attn.forward({ ...c.spec, x, weights, returnWeights: true });

        assert.ok(result.output instanceof Float32Array, `${c.name}: output is not a Float32Array`);
        assert.ok(result.weights instanceof Float32Array, `${c.name}: weights are not a Float32Array`);
        assertClose(result.output, decodeF32(c.output), TOLERANCE, `${c.name}: output`);
        assert.equal(result.weights.length, H * N * N, `${c.name}: weights length`);
        assertClose(result.weights, decodeF32(c.attention), TOLERANCE, `${c.name}: attention weights`);
      });
    }
  });
}
