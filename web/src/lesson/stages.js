// stages.js — the lesson's steps for the walkthrough view: which of the core's intermediate tensors
// each step shows, its formula with the sizes filled in, and what one cell of each tensor was made from.
// Pure (no DOM); the browser tests (tests/e2e/lesson.test.mjs) check every step's tensors against the core.
// The words are the catalog's (i18n/catalogs/en/walkthrough.js); formulas keep the lesson's notation,
// their numbers written in the page's locale.
//
// `shape` is the resolved spec the core returns with returnIntermediates (variant, seqLen N, dModel D,
// nHeads H, nKvHeads G, dHead dh, latentRank r, ropeDim dr, rope, causal).
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/walkthrough.js';  // the English words it speaks

const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : v.toFixed(4));

/** Step ids in order for a shape (the URL's `step` takes one of them). */
export function stepIds(shape) {
  return lessonSteps(shape).map((s) => s.id);
}

/**
 * The steps of the lesson for this shape.
 * Each: { id, title, short (its name in the step list), formula: string[], note, tensors: [{ key, label, kind: 'matrix' | 'heads', colour:
 * 'signed' | 'prob', bands?: number (column band width: heads), headLabel?: (j) => string }] }.
 * `key` is an intermediates stage name, or 'x' / 'output' (the input and the result).
 * @param {object} shape
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 */
export function lessonSteps(shape, i18n = EN) {
  const { t } = i18n;
  const { variant, seqLen: N, dModel: D, nHeads: H, dHead: dh } = shape;
  const mla = variant === 'mla';
  const G = mla ? H : shape.nKvHeads;
  const r = shape.latentRank ?? 0, dr = mla ? shape.ropeDim ?? 0 : 0;
  const rope = !mla && Boolean(shape.rope);
  const group = H / G;
  const dqk = dh + dr;
  const sizes = { N, D, H, G, dh, r, dr, HD: H * dh, GD: G * dh, HR: H * dr };
  const kvLabel = (g) => (mla ? t('walk.head', { h: g }) : group === 1 ? t('walk.kvHead', { g })
    : t('walk.kvHeadServes', { g, first: g * group, last: (g + 1) * group - 1 }));
  const qLabel = (h) => (mla || group === 1 ? t('walk.head', { h }) : t('walk.headKv', { h, g: Math.floor(h / group) }));
  const n = i18n.fmt.int;
  const scale = mla && dr > 0 ? '√(dh + dr)' : '√dh';
  const scaleValue = mla && dr > 0 ? `√(dh + dr) = √${n(dqk)} ≈ ${Math.sqrt(dqk).toFixed(2)}` : `√dh = √${n(dh)} ≈ ${Math.sqrt(dh).toFixed(2)}`;
  const steps = [];

  steps.push({
    id: 'input', title: t('walk.input.title'), short: t('walk.input.short'),
    formula: [t('walk.input.f', sizes)],
    note: t(rope ? 'walk.input.noteRope' : 'walk.input.note'),
    tensors: [{ key: 'x', label: 'X', kind: 'matrix', colour: 'signed' }],
  });

  if (!mla) {
    steps.push({
      id: 'project', title: t('walk.project.title'), short: t('walk.project.short'),
      formula: [t('walk.project.fq', sizes), t('walk.project.fk', sizes), t('walk.project.fv', sizes)],
      note: variant === 'mha' ? t('walk.project.noteMha', { H, dh }) : t('walk.project.noteShared', { count: G, dh, H }),
      tensors: [
        { key: 'q', label: 'Q', kind: 'matrix', colour: 'signed', bands: dh },
        { key: 'k', label: 'K', kind: 'matrix', colour: 'signed', bands: dh },
        { key: 'v', label: 'V', kind: 'matrix', colour: 'signed', bands: dh },
      ],
    });
  } else {
    steps.push({
      id: 'latent', title: t('walk.latent.title'), short: t('walk.latent.short'),
      formula: [t('walk.latent.fc', sizes), t('walk.project.fq', sizes)],
      note: t('walk.latent.note', { r, mha: 2 * H * dh }),
      tensors: [
        { key: 'c', label: t('walk.label.latent'), kind: 'matrix', colour: 'signed' },
        { key: 'q', label: 'Q', kind: 'matrix', colour: 'signed', bands: dh },
      ],
    });
    steps.push({
      id: 'up', title: t('walk.up.title'), short: t('walk.up.short'),
      formula: [t('walk.up.fk', sizes), t('walk.up.fv', sizes)],
      note: t('walk.up.note'),
      tensors: [
        { key: 'k', label: 'K', kind: 'matrix', colour: 'signed', bands: dh },
        { key: 'v', label: 'V', kind: 'matrix', colour: 'signed', bands: dh },
      ],
    });
    if (dr > 0) {
      steps.push({
        id: 'rope', title: t('walk.rope.title'), short: t('walk.rope.short'),
        formula: [t('walk.rope.fq', sizes), t('walk.rope.fk', sizes)],
        note: t('walk.rope.note'),
        tensors: [
          { key: 'qRope', label: 'q_R', kind: 'matrix', colour: 'signed', bands: dr },
          { key: 'kRope', label: 'k_R', kind: 'matrix', colour: 'signed' },
        ],
      });
    }
  }

  const splitFormula = [t('walk.split.f', sizes)];
  if (!mla && G !== H) splitFormula.push(t('walk.split.fGroups', { ...sizes, group, last: group - 1 }));
  if (mla && dr > 0) splitFormula.push(t('walk.split.fRope', { dqk }));
  steps.push({
    id: 'split', title: t('walk.split.title'), short: t('walk.split.short'),
    formula: splitFormula,
    note: [!mla && G !== H ? t('walk.split.noteRepeat', { group }) : t('walk.split.note'), rope ? t('walk.split.noteRope') : '']
      .filter(Boolean).join(' '),
    tensors: [
      { key: 'qHeads', label: t('walk.label.qHeads'), kind: 'heads', colour: 'signed', headLabel: qLabel },
      { key: 'kHeads', label: t('walk.label.kHeads'), kind: 'heads', colour: 'signed', headLabel: kvLabel },
      { key: 'vHeads', label: t('walk.label.vHeads'), kind: 'heads', colour: 'signed', headLabel: kvLabel },
    ],
  });
  steps.push({
    id: 'scores', title: t('walk.scores.title'), short: t('walk.scores.short'),
    formula: [t('walk.scores.f', { scale }), t('walk.scores.fSizes', { N, dqk, count: H, scaleValue })],
    note: t(shape.causal ? 'walk.scores.noteCausal' : 'walk.scores.note'),
    tensors: [{ key: 'scores', label: 'S', kind: 'heads', colour: 'signed', masked: shape.causal, headLabel: qLabel }],
  });
  steps.push({
    id: 'softmax', title: t('walk.softmax.title'), short: t('walk.softmax.short'),
    formula: [t('walk.softmax.f', sizes)],
    note: t('walk.softmax.note'),
    tensors: [{ key: 'attention', label: 'P', kind: 'heads', colour: 'prob', masked: shape.causal, headLabel: qLabel }],
  });
  steps.push({
    id: 'weighted', title: t('walk.weighted.title'), short: t('walk.weighted.short'),
    formula: [t('walk.weighted.f', { N, dh, count: H })],
    note: t('walk.weighted.note'),
    tensors: [{ key: 'heads', label: t('walk.label.oHeads'), kind: 'heads', colour: 'signed', headLabel: qLabel }],
  });
  steps.push({
    id: 'concat', title: t('walk.concat.title'), short: t('walk.concat.short'),
    formula: [t('walk.concat.f', sizes)],
    note: t('walk.concat.note'),
    tensors: [{ key: 'concat', label: t('walk.label.concat'), kind: 'matrix', colour: 'signed', bands: dh }],
  });
  steps.push({
    id: 'output', title: t('walk.output.title'), short: t('walk.output.short'),
    formula: [t('walk.output.f', sizes)],
    note: t('walk.output.note'),
    tensors: [{ key: 'output', label: 'Y', kind: 'matrix', colour: 'signed' }],
  });
  if (mla) {
    steps.push({
      id: 'cache', title: t('walk.cache.title'), short: t('walk.cache.short'),
      formula: [t('walk.cache.fRow', { r, dr, sum: r + dr, mha: 2 * H * dh }), t('walk.cache.fQuery', sizes), t('walk.cache.fScores', { scale })],
      note: t('walk.cache.note'),
      tensors: [
        { key: 'cache', label: t('walk.label.cache'), kind: 'matrix', colour: 'signed' },
        { key: 'qAbsorbed', label: t('walk.label.absorbed'), kind: 'heads', colour: 'signed', headLabel: qLabel },
      ],
    });
  }
  return steps;
}

/**
 * What one cell was made from, in words, e.g. "row 3 of head 2's output = Σ_j P[3,j]·V[j]".
 * @param {string} key      the tensor's key (see lessonSteps)
 * @param {object} shape    the resolved shape
 * @param {string[]} tokens the tokens (row labels)
 * @param {{ h?: number, i: number, j: number }} at  head (for 'heads' tensors), row, column
 * @param {number} value
 * @param {object} [i18n]   the element's language (ctx.i18n; default English)
 */
export function cellStory(key, shape, tokens, { h = 0, i, j }, value, i18n = EN) {
  const { t } = i18n;
  const mla = shape.variant === 'mla';
  const { nHeads: H, dHead: dh } = shape;
  const G = mla ? H : shape.nKvHeads;
  const group = H / G, r = shape.latentRank ?? 0, dr = mla ? shape.ropeDim ?? 0 : 0;
  const tok = (k) => `"${tokens[k] ?? k}"`;
  const at = { h, i, j, v: fmt(value) };
  const rot = !mla && shape.rope ? t('walk.cell.rotated', { i }) : '';
  const serves = !mla && group > 1 ? t('walk.cell.serves', { first: h * group, last: (h + 1) * group - 1 }) : '';
  switch (key) {
    case 'x': return t('walk.cell.x', { ...at, tok: tok(i) });
    case 'q': return t('walk.cell.q', { ...at, h: Math.floor(j / dh), d: j % dh });
    case 'k': case 'v': {
      const M = key.toUpperCase();
      if (mla) return t('walk.cell.kvLatent', { ...at, M, W: key === 'k' ? 'W_UK' : 'W_UV', h: Math.floor(j / dh), d: j % dh });
      return t('walk.cell.kv', { ...at, M, W: `W_${key}`, g: Math.floor(j / dh), d: j % dh });
    }
    case 'c': return t('walk.cell.c', { ...at, tok: tok(i) });
    case 'qRope': return t('walk.cell.qRope', { ...at, h: Math.floor(j / dr) });
    case 'kRope': return t('walk.cell.kRope', { ...at, H });
    case 'qHeads':
      if (mla && j >= dh) return t('walk.cell.qHeadRope', { ...at, c: h * dr + j - dh });
      return t('walk.cell.qHead', { ...at, c: h * dh + j, rot });
    case 'kHeads':
      if (mla && j >= dh) return t('walk.cell.kHeadRope', { ...at, c: j - dh });
      return t('walk.cell.kHead', { ...at, c: h * dh + j, rot, serves });
    case 'vHeads': return t('walk.cell.vHead', { ...at, c: h * dh + j, serves });
    case 'scores': {
      const masked = shape.causal && j > i ? t('walk.cell.scoresMasked', { i, j }) : '';
      return t('walk.cell.scores', { ...at, g: Math.floor(h / group), dqk: dh + dr, tq: tok(i), tk: tok(j), masked });
    }
    case 'attention':
      if (shape.causal && j > i) return t('walk.cell.masked', { ...at, tq: tok(i), tk: tok(j) });
      return t('walk.cell.attention', { ...at, tq: tok(i), tk: tok(j) });
    case 'heads': return t('walk.cell.heads', { ...at, g: Math.floor(h / group) });
    case 'concat': return t('walk.cell.concat', { ...at, h: Math.floor(j / dh), d: j % dh });
    case 'output': return t('walk.cell.output', at);
    case 'cache':
      return j < r ? t('walk.cell.cacheLatent', { ...at, tok: tok(i) }) : t('walk.cell.cacheRope', { ...at, c: j - r, tok: tok(i) });
    case 'qAbsorbed': return t('walk.cell.absorbed', { ...at, tok: tok(i) });
    default: return `${key}[${i}, ${j}] = ${at.v}`;
  }
}
