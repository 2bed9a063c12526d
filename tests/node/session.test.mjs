// session.test.mjs: decoding with a KV cache, for every variant and both builds. A session fed a
// sequence token by token or in chunks must give what a causal forward pass over the whole sequence
// gives; length / cacheBytes follow the documented formulas; reset, truncate, maxLen and dispose
// behave as the JS API says.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, assertClose, load, randomArray, randomWeights, shapeOf } from './helpers.mjs';

const VARIANTS = {
  mha: { variant: 'mha', dModel: 32, nHeads: 4 },
  mqa: { variant: 'mqa', dModel: 32, nHeads: 4 },
  gqa: { variant: 'gqa', dModel: 48, nHeads: 6, nKvHeads: 2 },
  'gqa rope': { variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2, rope: true },
  'mha rope base 500, dHead 6': { variant: 'mha', dModel: 20, nHeads: 3, dHead: 6, rope: { base: 500 } },
  'mla no rope': { variant: 'mla', dModel: 32, nHeads: 4, latentRank: 8 },
  'mla ropeDim 4': { variant: 'mla', dModel: 32, nHeads: 4, dHead: 6, latentRank: 10, ropeDim: 4 },
};

const N = 37; // sequence length; chunks cross the core's direct (< 8 queries) and blocked paths
const CHUNKS = [3, 1, 5, 10, 1, 17];
const TOL = 1e-4;

/** Bytes a cache of `length` tokens holds, at float32 (docs/api.md). */
function expectedCacheBytes(cfg, length) {
  const { variant, G, dh, r, dr } = shapeOf({ ...cfg, seqLen: 1 });
  return variant === 'mla' ? (r + dr) * length * 4 : 2 * G * dh * length * 4;
}

/** Rows [from, from + k) of the forward weights (H, N, N), keys [0, length): (H, k, length). */
function weightRows(fw, H, n, from, k, length) {
  const out = new Float32Array(H * k * length);
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < k; t++) {
      for (let j = 0; j < length; j++) out[h * k * length + t * length + j] = fw[h * n * n + (from + t) * n + j];
    }
  }
  return out;
}

/**
 * Appends x[from, from + sum(chunks)) chunk by chunk and checks every result against the forward
 * pass `ref` (output (n, D), weights (H, n, n)), plus length and cacheBytes after each append.
 */
function appendAndCheck(session, cfg, x, ref, n, chunks, from, label) {
  const D = cfg.dModel;
  const H = cfg.nHeads;
  let pos = from;
  for (const k of chunks) {
    const where = `${label}, tokens [${pos}, ${pos + k})`;
    const r = session.append(x.slice(pos * D, (pos + k) * D));
    const length = pos + k;
    assert.equal(session.length, length, `${where}: length`);
    assert.equal(session.cacheBytes, expectedCacheBytes(cfg, length), `${where}: cacheBytes`);
    assert.ok(r.output instanceof Float32Array, `${where}: output is not a Float32Array`);
    assertClose(r.output, ref.output.subarray(pos * D, length * D), TOL, `${where}: output`);
    if (ref.weights) {
      assert.ok(r.weights instanceof Float32Array, `${where}: weights missing`);
      assert.equal(r.weights.length, H * k * length, `${where}: weights must be (H, k, length)`);
      assertClose(r.weights, weightRows(ref.weights, H, n, pos, k, length), TOL, `${where}: weights`);
    }
    pos = length;
  }
  return pos;
}

for (const { simd, name } of BUILDS) {
  describe(`sessions (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    /** A sequence, its weights, and the causal forward pass over it. */
    function setup(cfg, { seeded = false, returnWeights = true, n = N } = {}) {
      const x = randomArray(n * cfg.dModel, 17);
      const params = seeded ? { seed: 12 } : { weights: randomWeights({ ...cfg, seqLen: n }, 4) };
      const ref = attn.forward({ ...cfg, ...params, seqLen: n, x, causal: true, returnWeights });
      const open = (maxLen = 64) => attn.createSession({ ...cfg, ...params, maxLen, returnWeights });
      return { x, ref, open };
    }

    for (const [label, cfg] of Object.entries(VARIANTS)) {
      describe(label, () => {
        test('token by token equals the causal forward pass', () => {
          const { x, ref, open } = setup(cfg);
          const s = open();
          try {
            assert.equal(s.length, 0, 'a new session is empty');
            assert.equal(s.cacheBytes, 0, 'a new session holds no cache');
            assert.equal(s.maxLen, 64);
            appendAndCheck(s, cfg, x, ref, N, new Array(N).fill(1), 0, 'token by token');
          } finally {
            s.dispose();
          }
        });

        test(`chunks of ${CHUNKS.join(', ')} equal the causal forward pass`, () => {
          const { x, ref, open } = setup(cfg);
          const s = open();
          try {
            appendAndCheck(s, cfg, x, ref, N, CHUNKS, 0, 'chunks');
          } finally {
            s.dispose();
          }
        });

        test('seeded weights: a session with seed s equals forward with seed s', () => {
          const { x, ref, open } = setup(cfg, { seeded: true, returnWeights: false });
          const s = open();
          try {
            appendAndCheck(s, cfg, x, ref, N, [7, 1, 29], 0, 'seeded');
            assert.ok(s.append(x.subarray(0, cfg.dModel)).weights == null, 'weights returned without returnWeights');
          } finally {
            s.dispose();
          }
        });

        test('reset() empties the cache; positions restart at 0', () => {
          const { x, ref, open } = setup(cfg);
          const s = open();
          try {
            appendAndCheck(s, cfg, x, ref, N, [20], 0, 'before reset');
            s.reset();
            assert.equal(s.length, 0, 'length after reset');
            assert.equal(s.cacheBytes, 0, 'cacheBytes after reset');
            appendAndCheck(s, cfg, x, ref, N, CHUNKS, 0, 'after reset');
          } finally {
            s.dispose();
          }
        });

        test('truncate(n) rewinds: re-appending gives the same outputs', () => {
          const { x, ref, open } = setup(cfg);
          const s = open();
          try {
            appendAndCheck(s, cfg, x, ref, N, [20], 0, 'first pass');
            s.truncate(12);
            assert.equal(s.length, 12, 'length after truncate(12)');
            assert.equal(s.cacheBytes, expectedCacheBytes(cfg, 12), 'cacheBytes after truncate(12)');
            appendAndCheck(s, cfg, x, ref, N, [1, 9, 15], 12, 'after truncate(12)');
            s.truncate(s.length);
            assert.equal(s.length, N, 'truncate(length) keeps everything');
            s.truncate(0);
            assert.equal(s.length, 0, 'truncate(0) empties');
            appendAndCheck(s, cfg, x, ref, N, [4, 33], 0, 'after truncate(0)');
          } finally {
            s.dispose();
          }
        });
      });
    }

    test('appending beyond maxLen throws a RangeError naming maxLen; the session still works', () => {
      for (const cfg of [VARIANTS.gqa, VARIANTS['mla ropeDim 4']]) {
        const { x, ref, open } = setup(cfg, { n: 8 });
        const s = open(8);
        try {
          assert.equal(s.maxLen, 8);
          appendAndCheck(s, cfg, x, ref, 8, [6], 0, `${cfg.variant} before`);
          assert.throws(
            () => s.append(x.slice(0, 3 * cfg.dModel)),
            (e) => e instanceof RangeError && /maxLen/.test(e.message) && /8/.test(e.message),
            `${cfg.variant}: appending 3 tokens to 6 of maxLen 8 must throw a RangeError naming maxLen (8)`,
          );
          assert.equal(s.length, 6, `${cfg.variant}: a refused append must leave the cache as it was`);
          appendAndCheck(s, cfg, x, ref, 8, [2], 6, `${cfg.variant} after the refused append`);
          assert.throws(() => s.append(x.slice(0, cfg.dModel)), RangeError, 'a full session refuses one more token');
          assert.equal(s.length, 8);
        } finally {
          s.dispose();
        }
      }
    });

    test('two sessions do not share state', () => {
      const cfg = VARIANTS['gqa rope'];
      const { x, ref, open } = setup(cfg);
      const a = open();
      const b = open();
      try {
        for (let pos = 0; pos < N; pos++) {
          appendAndCheck(a, cfg, x, ref, N, [1], pos, 'session a');
          if (pos % 2 === 0) b.append(randomArray(cfg.dModel, 100 + pos)); // unrelated tokens
        }
        assert.equal(b.length, Math.ceil(N / 2));
      } finally {
        a.dispose();
        b.dispose();
      }
    });

    test('after dispose() every call throws; dispose() again is harmless', () => {
      const cfg = VARIANTS.mha;
      const s = attn.createSession({ ...cfg, maxLen: 4 });
      s.append(randomArray(cfg.dModel, 1));
      s.dispose();
      const disposed = (e) => e instanceof Error && /disposed/.test(e.message);
      assert.throws(() => s.append(randomArray(cfg.dModel, 2)), disposed, 'append');
      assert.throws(() => s.reset(), disposed, 'reset');
      assert.throws(() => s.truncate(0), disposed, 'truncate');
      assert.throws(() => s.length, disposed, 'length');
      assert.throws(() => s.cacheBytes, disposed, 'cacheBytes');
      assert.throws(() => s.maxLen, disposed, 'maxLen');
      assert.doesNotThrow(() => s.dispose(), 'second dispose');
      // the module is unaffected
      const t = attn.createSession({ ...cfg, maxLen: 4 });
      assert.equal(t.append(randomArray(cfg.dModel, 3)).output.length, cfg.dModel);
      t.dispose();
    });
  });
}
