// stages.js — the walkthrough's steps for one attention block, the lesson's and a checkpoint's alike:
// which of the core's stage tensors each step shows, its formula with the sizes filled in, its note, and
// what one cell of each tensor was made from. The core records both in one StageRecord
// (core/include/attn/stage_record.hpp): the lesson's forward pass on the form's shape, and one layer of an
// opened checkpoint (model.stages). A checkpoint's layer adds steps and words where its block does more
// (its norm before the attention, biases, a fused projection, q/k norms, RoPE as a step of its own with
// its pairing and scaling, its softmax scale and sliding window, DeepSeek's query latent and latent
// norm); `blockOf` says which. Pure (no DOM); the browser tests check every step's tensors against the
// core (tests/e2e/lesson.test.mjs) and against PyTorch (tests/e2e/model-walkthrough.test.mjs). The
// words are the catalog's (i18n/catalogs/en/walkthrough.js); formulas keep the lesson's notation.
//
// `shape` is the resolved spec the core returns with returnIntermediates (variant, seqLen N, dModel D,
// nHeads H, nKvHeads G, dHead dh, latentRank r, ropeDim dr, rope, causal), or model.stages' shape of a
// checkpoint's layer (the same names, and modelType, layer, norm, dNope, dValue, queryRank, qkvBias,
// oBias, fusedQkv, qkNorm, rope: { pairs, base, type, attentionFactor }, scale, slidingWindow,
// maxPositions).
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/walkthrough.js';  // the English words it speaks

const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : v.toFixed(4));
const round = (v) => String(Number(v.toPrecision(4)));
/** The lesson's RoPE (core/include/attn/rope.hpp): rotate-half, base 10000, unscaled. */
const LESSON_ROPE = { pairs: 'half', base: 10000, type: 'default', attentionFactor: 1 };

/**
 * The block either kind of shape describes, in one form: its sizes, and what it does beyond the
 * lesson's block (all false or 0 for the lesson's).
 * @param {object} shape
 */
export function blockOf(shape) {
  const checkpoint = Boolean(shape.modelType);
  const mla = shape.variant === 'mla';
  const H = shape.nHeads, G = mla ? H : shape.nKvHeads;
  const dh = mla && checkpoint ? shape.dNope : shape.dHead;
  const dr = mla ? shape.ropeDim ?? 0 : 0;
  const dqk = dh + dr;
  const rope = checkpoint ? shape.rope || null : (mla ? dr > 0 : Boolean(shape.rope)) ? LESSON_ROPE : null;
  const scale = checkpoint ? shape.scale : 1 / Math.sqrt(dqk);
  return {
    checkpoint, mla, N: shape.seqLen, D: shape.dModel, H, G, dh, dr, dqk, dv: checkpoint ? shape.dValue : dh, group: H / G,
    r: shape.latentRank ?? 0, rq: shape.queryRank ?? 0,
    norm: checkpoint ? shape.norm : null,            // 'rmsnorm' | 'layernorm': the layer's norm before attention
    layer: shape.layer ?? 0, maxPositions: Boolean(shape.maxPositions),
    qkvBias: checkpoint && Boolean(shape.qkvBias), oBias: checkpoint && Boolean(shape.oBias),
    fusedQkv: checkpoint && Boolean(shape.fusedQkv), qkNorm: checkpoint && Boolean(shape.qkNorm),
    rope,
    // where Q and K turn: a step of its own (a checkpoint records them turned), or as the heads split (the lesson)
    rotateStep: checkpoint && !mla && Boolean(rope),
    latentNorm: checkpoint && mla,                   // DeepSeek's kv_a_layernorm; the lesson's latent has none
    scale, plainScale: Math.abs(scale * Math.sqrt(dqk) - 1) <= 1e-6,  // 1/√(dh + dr); else YaRN's m²/√(dh + dr)
    window: checkpoint ? shape.slidingWindow || 0 : 0,
    causal: checkpoint || Boolean(shape.causal),
  };
}

/** Whether key j is masked for query i (after it, or outside the sliding window). */
const maskedAt = (b, i, j) => b.causal && (j > i || (b.window > 0 && i - j >= b.window));

/** Step ids in order for a shape (the URL's `step` takes one of them). */
export function stepIds(shape) {
  return lessonSteps(shape).map((s) => s.id);
}

/**
 * The walkthrough's steps for this shape.
 * Each: { id, title, short (its name in the step list), formula: string[], note, tensors: [{ key, label, kind: 'matrix' | 'heads', colour:
 * 'signed' | 'prob', bands?: number (column band width: heads), masked?: boolean, headLabel?: (j) => string }] }.
 * `key` is a stage name, or 'x' / 'output' (the input and the result).
 * @param {object} shape
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 */
export function lessonSteps(shape, i18n = EN) {
  const { t } = i18n;
  const b = blockOf(shape);
  const { mla, N, D, H, G, dh, dr, dv, dqk, group, r, rq } = b;
  const n = i18n.fmt.int;
  const lat = b.latentNorm ? 'ĉ' : 'c';
  const label = (key) => t(`walk.label.${key}`, { lat });
  const kvLabel = (g) => (mla ? t('walk.head', { h: g }) : group === 1 ? t('walk.kvHead', { g })
    : t('walk.kvHeadServes', { g, first: g * group, last: (g + 1) * group - 1 }));
  const qLabel = (h) => (mla || group === 1 ? t('walk.head', { h }) : t('walk.headKv', { h, g: Math.floor(h / group) }));
  const matrix = (key, bands) => ({ key, label: label(key), kind: 'matrix', colour: 'signed', ...(bands ? { bands } : {}) });
  const heads = (key, headLabel, extra = {}) => ({ key, label: label(key), kind: 'heads', colour: 'signed', headLabel, ...extra });
  const product = (out, a, w, rows, inner, cols) => `${out} = ${a} · ${w}:  (${n(rows)}, ${n(inner)}) · (${n(inner)}, ${n(cols)}) → (${n(rows)}, ${n(cols)})`;
  const bias = (name) => (b.qkvBias ? ` + ${name}` : '');
  const ropeLines = (w) => {
    const lines = [b.rope.pairs === 'adjacent' ? t('walk.rope.adjacent') : t('walk.rope.half', { half: w / 2 }),
      t('walk.rope.theta', { base: String(b.rope.base), w })];
    if (b.rope.type !== 'default') lines.push(t('walk.rope.scaled', { type: b.rope.type }));
    if (b.rope.attentionFactor !== 1) lines.push(t('walk.rope.factor', { factor: round(b.rope.attentionFactor) }));
    return lines;
  };
  const steps = [];
  const step = (id, formula, note, tensors) => steps.push({ id, title: t(`walk.${id}.title`), short: t(`walk.${id}.short`), formula, note, tensors });

  const size = `(N, D) = (${n(N)}, ${n(D)})`;
  step('input', [b.norm ? `X = ${t(`walk.norm.${b.norm}`)}(h):  ${size}` : `X  ${size}`],
    !b.checkpoint ? t(!mla && shape.rope ? 'walk.input.noteRope' : 'walk.input.note')
      : b.layer > 0 ? t('walk.input.later', { count: b.layer, last: b.layer - 1 }) : t(b.maxPositions ? 'walk.input.firstPositions' : 'walk.input.first'),
    [matrix('x')]);

  if (!mla) {
    const notes = [];
    if (b.fusedQkv) notes.push(t('walk.project.fused'));
    if (b.qkvBias) notes.push(t('walk.project.bias'));
    notes.push(G === H ? t('walk.project.mha', { H, dh }) : t('walk.project.shared', { count: G, dh, H }));
    step('project', [product('Q', 'X', `W_q${bias('b_q')}`, N, D, H * dh), product('K', 'X', `W_k${bias('b_k')}`, N, D, G * dh),
      product('V', 'X', `W_v${bias('b_v')}`, N, D, G * dh)], notes.join(' '), [matrix('q', dh), matrix('k', dh), matrix('v', dh)]);
    if (b.qkNorm) {
      step('qkNorm', ['q_h ← RMSNorm(q_h) · w_q,   k_g ← RMSNorm(k_g) · w_k', t('walk.qkNorm.formula', { dh })],
        t('walk.qkNorm.note'), [matrix('qNorm', dh), matrix('kNorm', dh)]);
    }
    if (b.rotateStep) {
      step('rotate', [`Q, K ← RoPE(Q, K):  (${n(N)}, ${n(H * dh)}), (${n(N)}, ${n(G * dh)})`, ...ropeLines(dh)], t('walk.rotate.note'),
        [matrix('qRotated', dh), matrix('kRotated', dh)]);
    }
  } else {
    if (rq > 0) {
      step('queryLatent', [`c_Q = RMSNorm(X · W_DQ${bias('b_DQ')}):  (${n(N)}, ${n(D)}) · (${n(D)}, ${n(rq)}) → (${n(N)}, ${n(rq)})`],
        t('walk.queryLatent.note', { rq }), [matrix('cq')]);
    }
    step('latent', [product('c', 'X', `W_DKV${bias('b_DKV')}`, N, D, r), ...(b.checkpoint ? [t('walk.latent.cols', { r })] : []),
      rq > 0 ? product('Q', 'c_Q', 'W_UQ', N, rq, H * dh) : product('Q', 'X', 'W_q', N, D, H * dh)],
    t('walk.latent.note', { r, full: H * (dh + dv) }), [matrix('c'), matrix('q', dh)]);
    if (b.latentNorm) step('latentNorm', [`ĉ = RMSNorm(c) · w:  (${n(N)}, ${n(r)})`], t('walk.latentNorm.note'), [matrix('cNorm')]);
    step('up', [product('K', lat, 'W_UK', N, r, H * dh), product('V', lat, 'W_UV', N, r, H * dv)], t('walk.up.note'),
      [matrix('k', dh), matrix('v', dv)]);
    if (dr > 0) {
      const sizes = (w) => `  ${b.checkpoint ? '' : `(${n(N)}, ${n(D)}) · (${n(D)}, ${n(w)}) → `}(${n(N)}, ${n(w)})`;
      const qr = b.checkpoint ? t('walk.rope.qPart', { dr }) : 'q_R = RoPE(X · W_QR)';
      const kr = b.checkpoint ? t('walk.rope.kPart', { dr }) : 'k_R = RoPE(X · W_KR)';
      step('rope', [`${qr}:${sizes(H * dr)}`, `${kr}:${sizes(dr)}, ${t('walk.rope.shared', { H })}`,
        ...ropeLines(dr)],
        t('walk.rope.note'), [matrix('qRope', dr), matrix('kRope')]);
    }
  }

  const split = [t('walk.split.f', { N, H, dh })];
  if (!mla && G !== H) split.push(t('walk.split.fGroups', { N, G, dh, GD: G * dh, group, last: group - 1 }));
  if (mla && dr > 0) split.push(t('walk.split.fRope', { dqk }));
  if (mla && dv !== dh) split.push(`V: (${n(N)}, ${n(H * dv)}) → (${n(H)}, ${n(N)}, ${n(dv)})`);
  step('split', split, [t('walk.split.note'), !mla && G !== H ? t('walk.split.noteRepeat', { group }) : '',
    b.rope && !mla && !b.rotateStep ? t('walk.split.noteRope') : ''].filter(Boolean).join(' '),
  [heads('qHeads', qLabel), heads('kHeads', kvLabel), heads('vHeads', kvLabel)]);

  const root = mla && dr > 0 ? '√(dh + dr)' : '√dh';
  const scaleValue = b.plainScale ? t('walk.scores.scale', { root, dqk, value: Math.sqrt(dqk).toFixed(2) })
    : `${t('walk.scores.yarn', { dqk })} = ${round(b.scale)}`;
  step('scores', [b.plainScale ? `S_h = Q_h · K_gᵀ / ${root}` : `S_h = Q_h · K_gᵀ · ${round(b.scale)}`,
    t('walk.scores.fSizes', { N, dqk, count: H, scaleValue })],
  t(b.window ? 'walk.scores.noteWindow' : b.causal ? 'walk.scores.noteCausal' : 'walk.scores.note', { window: b.window }),
  [heads('scores', qLabel, { masked: b.causal })]);
  step('softmax', [t('walk.softmax.f', { N })], t('walk.softmax.note'),
    [{ ...heads('attention', qLabel, { masked: b.causal }), colour: 'prob' }]);
  step('weighted', [t('walk.weighted.f', { N, dv, count: H })], t('walk.weighted.note'), [heads('heads', qLabel)]);
  step('concat', [t('walk.concat.f', { N, H, dv, Hdv: H * dv })],
    t('walk.concat.note'), [matrix('concat', dv)]);
  step('output', [product('Y', 'concat', `W_o${b.oBias ? ' + b_o' : ''}`, N, H * dv, D)],
    [t('walk.output.note'), b.checkpoint ? t('walk.output.residual') : ''].filter(Boolean).join(' '), [matrix('output')]);
  if (mla) {
    step('cache', [t('walk.cache.fRow', { lat, r, dr, sum: r + dr, full: H * (dh + dv) }), product('q̃_h', 'Q_h', 'W_UK,hᵀ', N, dh, r),
      `S_h = [q̃_h | q_R,h] · [${lat} | k_R]ᵀ ${b.plainScale ? `/ ${root}` : `· ${round(b.scale)}`}`], t('walk.cache.note'),
    [matrix('cache'), heads('qAbsorbed', qLabel)]);
  }
  return steps;
}

/**
 * What one cell was made from, in words, e.g. "row 3 of head 2's output: O_2[3, 0] = Σ_k P_2[3, k] · V_1[k, 0] = …".
 * @param {string} key      the tensor's key (see lessonSteps)
 * @param {object} shape    the resolved shape
 * @param {string[]} tokens the tokens (row labels)
 * @param {{ h?: number, i: number, j: number }} at  head (for 'heads' tensors), row, column
 * @param {number} value
 * @param {object} [i18n]   the element's language (ctx.i18n; default English)
 */
export function cellStory(key, shape, tokens, { h = 0, i, j }, value, i18n = EN) {
  const { t } = i18n;
  const b = blockOf(shape);
  const { mla, H, dh, dr, dv, group, r } = b;
  const tok = (k) => `“${tokens[k] ?? k}”`;
  const v = value === -Infinity ? '−∞' : fmt(value);
  const headOf = (width) => Math.floor(j / width);
  const who = (kv, width = dh) => (kv && !mla ? t('walk.kvHead', { g: headOf(width) }) : t('walk.head', { h: headOf(width) }));
  const upper = { q: 'Q', k: 'K', v: 'V', qNorm: 'Q', kNorm: 'K', qRotated: 'Q', kRotated: 'K' }[key];
  const lat = b.latentNorm ? 'ĉ' : 'c';
  // the lesson turns Q and K as the heads split; a checkpoint records them turned (Q_rot) or normed (Q_norm)
  const turnedHere = b.rope && !mla && !b.rotateStep;
  switch (key) {
    case 'x': return t(b.norm ? 'walk.cell.xNorm' : 'walk.cell.x', { i, j, v, tok: tok(i) });
    case 'q': case 'k': case 'v':
      if (mla && key !== 'q') {
        return t('walk.cell.proj', { M: upper, i, j, v, src: lat, W: key === 'k' ? 'W_UK' : 'W_UV', bias: '',
          who: who(false, key === 'v' ? dv : dh), dim: j % (key === 'v' ? dv : dh) });
      }
      return t('walk.cell.proj', { M: upper, i, j, v, src: mla && b.rq ? 'c_Q' : 'X', W: mla && b.rq ? 'W_UQ' : `W_${key}`,
        bias: b.qkvBias && !mla ? ` + b_${key}[${j}]` : '', who: who(key !== 'q'), dim: j % dh });
    case 'qNorm': case 'kNorm': return t('walk.cell.norm', { M: `${upper}_norm`, src: upper, i, j, v, who: who(key === 'kNorm'), dim: j % dh });
    case 'qRotated': case 'kRotated': {
      const pair = b.rope.pairs === 'adjacent' ? (j % 2 === 0 ? j + 1 : j - 1) : (j % dh < dh / 2 ? j + dh / 2 : j - dh / 2);
      return t('walk.cell.rotated', { M: `${upper}_rot`, src: b.qkNorm ? `${upper}_norm` : upper, i, j, v, pair: pair % dh });
    }
    case 'cq': return t('walk.cell.cq', { i, j, v, tok: tok(i) });
    case 'c': return t(b.latentNorm ? 'walk.cell.cBeforeNorm' : 'walk.cell.c', { i, j, v, tok: tok(i) });
    case 'cNorm': return t('walk.cell.cNorm', { i, j, v, tok: tok(i) });
    case 'qRope': return t('walk.cell.qRope', { i, j, v, head: headOf(dr), dim: j % dr });
    case 'kRope': return t('walk.cell.kRope', { i, j, v, tok: tok(i), H });
    case 'qHeads': case 'kHeads': case 'vHeads': {
      const M = key[0].toUpperCase();
      if (mla && key !== 'vHeads' && j >= dh) return t(`walk.cell.${key[0]}Part`, { h, i, j, v, col: key === 'qHeads' ? h * dr + j - dh : j - dh });
      const width = key === 'vHeads' ? dv : dh;
      const src = key === 'vHeads' || mla ? M : b.rotateStep ? `${M}_rot` : b.qkNorm ? `${M}_norm` : M;
      const rot = turnedHere && key !== 'vHeads' ? t('walk.cell.turned', { i }) : '';
      if (!mla && key !== 'qHeads' && group > 1) {
        return t('walk.cell.partShared', { M, h, i, j, v, src, col: h * width + j, rot, a: h * group, b: (h + 1) * group - 1 });
      }
      return t('walk.cell.part', { M, h, i, j, v, src, col: h * width + j, rot });
    }
    case 'scores': {
      const g = mla ? h : Math.floor(h / group);
      if (value === -Infinity) return t('walk.cell.scoresMasked', { h, i, j, q: tok(i), k: tok(j) });
      const masked = maskedAt(b, i, j) ? t('walk.cell.scoresWillMask') : '';
      return t('walk.cell.scores', { h, g, i, j, v, scale: round(b.scale), q: tok(i), k: tok(j), masked });
    }
    case 'attention':
      if (maskedAt(b, i, j)) return t('walk.cell.masked', { h, i, j, q: tok(i), k: tok(j) });
      return t('walk.cell.attention', { h, i, j, v, q: tok(i), k: tok(j) });
    case 'heads': return t('walk.cell.heads', { h, g: mla ? h : Math.floor(h / group), i, j, v });
    case 'concat': return t('walk.cell.concat', { i, j, v, h: Math.floor(j / dv), dim: j % dv });
    case 'output': return t('walk.cell.output', { i, j, v, bias: b.oBias ? ` + b_o[${j}]` : '' });
    case 'cache':
      return j < r ? t('walk.cell.cacheLatent', { lat, i, j, v, tok: tok(i) }) : t('walk.cell.cacheRope', { i, j, v, col: j - r, tok: tok(i) });
    case 'qAbsorbed': return t('walk.cell.qAbsorbed', { h, i, j, v, tok: tok(i) });
    default: return `${key}[${i}, ${j}] = ${v}`;
  }
}
