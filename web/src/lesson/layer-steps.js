// layer-steps.js — the walkthrough's steps for one layer of an opened checkpoint: which of the core's
// stages each step shows (model.stages: core/include/attn/pretrained/layer_stages.hpp), its formula with
// the sizes filled in, and what one cell was made from. The lesson's steps (lesson/stages.js) with what
// a checkpoint adds: its norm before the attention, biases, a fused projection, q/k norms (qwen3), RoPE
// as the model applies it (its pairing, scaling and factor), its softmax scale and sliding window, and
// for DeepSeek's MLA the query latent, the latent's norm and v_head_dim. Pure (no DOM); words from the
// catalogs (i18n/catalogs/en/layer-steps.js).
import '../i18n/catalogs/en/layer-steps.js';
import '../i18n/catalogs/en/maps.js';

const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : v.toFixed(4));
const round = (v) => String(Number(v.toPrecision(4)));
const ropePairs = (shape) => (shape.rope ? shape.rope.pairs : null);

/** The sizes every step speaks of. */
function sizesOf(shape) {
  const mla = shape.variant === 'mla';
  const H = shape.nHeads, G = mla ? H : shape.nKvHeads;
  const dh = mla ? shape.dNope : shape.dHead, dr = mla ? shape.ropeDim : 0, dv = shape.dValue;
  return { mla, N: shape.seqLen, D: shape.dModel, H, G, dh, dr, dv, dqk: dh + dr, group: H / G, r: shape.latentRank ?? 0,
    rq: shape.queryRank ?? 0 };
}

/**
 * The steps for one layer of a checkpoint (`shape`: model.stages' shape). Each: { id, title, formula:
 * string[], note, tensors: [{ key, label, kind, colour, bands?, masked?, headLabel? }] } as lessonSteps.
 * @param {object} shape @param {{ t(key: string, params?: object): string }} i18n
 */
export function layerSteps(shape, i18n) {
  const { t } = i18n;
  const { mla, N, D, H, G, dh, dr, dv, dqk, group, r, rq } = sizesOf(shape);
  const label = (key) => t(`layerSteps.label.${key}`);
  const kvLabel = (g) => (mla ? t('maps.head', { h: g }) : group === 1 ? t('maps.group', { g })
    : t('maps.groupHeads', { g, first: g * group, last: (g + 1) * group - 1 }));
  const qLabel = (h) => (mla || group === 1 ? t('maps.head', { h }) : t('maps.headShared', { h, g: Math.floor(h / group) }));
  const matrix = (key, bands) => ({ key, label: label(key), kind: 'matrix', colour: 'signed', ...(bands ? { bands } : {}) });
  const heads = (key, headLabel, extra = {}) => ({ key, label: label(key), kind: 'heads', colour: 'signed', headLabel, ...extra });
  const product = (out, a, w, rows, inner, cols) => `${out} = ${a} · ${w}:  (${rows}, ${inner}) · (${inner}, ${cols}) → (${rows}, ${cols})`;
  const bias = (b) => (shape.qkvBias ? ` + ${b}` : '');
  const rope = shape.rope || null;
  const ropeLines = (w) => {
    const lines = [rope.pairs === 'adjacent' ? t('layerSteps.rotate.adjacent') : t('layerSteps.rotate.half', { half: w / 2 }),
      `θ_i = ${rope.base}^(−2i/${w})`];
    if (rope.type !== 'default') lines.push(t('layerSteps.rotate.scaled', { type: rope.type }));
    if (rope.attentionFactor !== 1) lines.push(t('layerSteps.rotate.factor', { factor: round(rope.attentionFactor) }));
    return lines;
  };
  const steps = [];
  const step = (id, formula, note, tensors) => steps.push({ id, title: t(`layerSteps.${id}.title`), short: t(`layerSteps.${id}.short`), formula, note, tensors });

  const norm = t(`layerSteps.norm.${shape.norm}`);
  step('input', [`X = ${norm}(h):  (N, D) = (${N}, ${D})`],
    shape.layer > 0 ? t('layerSteps.input.later', { last: shape.layer - 1 })
      : t(shape.maxPositions ? 'layerSteps.input.firstPositions' : 'layerSteps.input.first'),
    [matrix('x')]);

  if (!mla) {
    const notes = [];
    if (shape.fusedQkv) notes.push(t('layerSteps.project.fused'));
    if (shape.qkvBias) notes.push(t('layerSteps.project.bias'));
    notes.push(G === H ? t('layerSteps.project.mha', { H, dh }) : t('layerSteps.project.shared', { count: G, dh, H }));
    step('project', [product('Q', 'X', `W_q${bias('b_q')}`, N, D, H * dh), product('K', 'X', `W_k${bias('b_k')}`, N, D, G * dh),
      product('V', 'X', `W_v${bias('b_v')}`, N, D, G * dh)], notes.join(' '), [matrix('q', dh), matrix('k', dh), matrix('v', dh)]);
    if (shape.qkNorm) {
      step('qkNorm', ['q_h ← RMSNorm(q_h) · w_q,   k_g ← RMSNorm(k_g) · w_k', t('layerSteps.qkNorm.formula', { dh })],
        t('layerSteps.qkNorm.note'), [matrix('qNorm', dh), matrix('kNorm', dh)]);
    }
    if (rope) {
      step('rotate', [`Q, K ← RoPE(Q, K):  (${N}, ${H * dh}), (${N}, ${G * dh})`, ...ropeLines(dh)], t('layerSteps.rotate.note'),
        [matrix('qRotated', dh), matrix('kRotated', dh)]);
    }
  } else {
    if (rq > 0) {
      step('queryLatent', [`c_Q = RMSNorm(X · W_DQ${bias('b_DQ')}):  (${N}, ${D}) · (${D}, ${rq}) → (${N}, ${rq})`],
        t('layerSteps.queryLatent.note', { rq }), [matrix('cq')]);
    }
    step('latent', [product('c', 'X', `W_DKV${bias('b_DKV')}`, N, D, r), t('layerSteps.latent.cols', { r }),
      rq > 0 ? product('Q', 'c_Q', 'W_UQ', N, rq, H * dh) : product('Q', 'X', 'W_q', N, D, H * dh)],
    t('layerSteps.latent.note', { r, full: H * (dh + dv) }), [matrix('c'), matrix('q', dh)]);
    step('latentNorm', [`ĉ = RMSNorm(c) · w:  (${N}, ${r})`], t('layerSteps.latentNorm.note'), [matrix('cNorm')]);
    step('up', [product('K', 'ĉ', 'W_UK', N, r, H * dh), product('V', 'ĉ', 'W_UV', N, r, H * dv)], t('layerSteps.up.note'),
      [matrix('k', dh), matrix('v', dv)]);
    step('rope', [`${t('layerSteps.rope.q', { dr })}:  (${N}, ${H * dr})`, `${t('layerSteps.rope.k', { dr, H })}:  (${N}, ${dr})`,
      ...ropeLines(dr)], t('layerSteps.rope.note'), [matrix('qRope', dr), matrix('kRope')]);
  }

  const split = [`(N, H·dh) → (${N}, ${H}, ${dh}) → (${H}, ${N}, ${dh})`];
  if (!mla && G !== H) split.push(`K, V: (${N}, ${G * dh}) → (${G}, ${N}, ${dh})`);
  if (mla) split.push(`q_h ← [q_h | q_R,h],  k_h ← [k_h | k_R]:  ${dh} + ${dr} = ${dqk}`, `V: (${N}, ${H * dv}) → (${H}, ${N}, ${dv})`);
  step('split', split, [t('layerSteps.split.note'), !mla && G !== H ? t('layerSteps.split.shared', { group }) : ''].filter(Boolean).join(' '),
    [heads('qHeads', qLabel), heads('kHeads', kvLabel), heads('vHeads', kvLabel)]);

  const yarn = Math.abs(shape.scale * Math.sqrt(dqk) - 1) > 1e-6;
  step('scores', [`S_h = Q_h · K_gᵀ · ${round(shape.scale)}:  (${N}, ${dqk}) · (${dqk}, ${N}) → (${N}, ${N}), ${t('layerSteps.scores.heads', { H })}`,
    yarn ? `${t('layerSteps.scores.yarn', { dqk })} = ${round(shape.scale)}` : `1/√${dqk} = ${round(shape.scale)}`],
  shape.slidingWindow ? t('layerSteps.scores.window', { window: shape.slidingWindow }) : t('layerSteps.scores.causal'),
  [heads('scores', qLabel, { masked: true })]);
  step('softmax', [`P_h = softmax(S_h):  (${N}, ${N}) × ${H}`], t('layerSteps.softmax.note'),
    [{ ...heads('attention', qLabel, { masked: true }), colour: 'prob' }]);
  step('weighted', [`O_h = P_h · V_g:  (${N}, ${N}) · (${N}, ${dv}) → (${N}, ${dv}) × ${H}`], t('layerSteps.weighted.note'),
    [heads('heads', qLabel)]);
  step('concat', [`(${H}, ${N}, ${dv}) → (${N}, ${H}, ${dv}) → (${N}, ${H * dv})`], t('layerSteps.concat.note'), [matrix('concat', dv)]);
  step('output', [product('Y', 'concat', `W_o${shape.oBias ? ' + b_o' : ''}`, N, H * dv, D)], t('layerSteps.output.note'), [matrix('output')]);
  if (mla) {
    step('cache', [`[ĉ | k_R]:  ${r} + ${dr} = ${r + dr} ${t('layerSteps.cache.row')}`, product('q̃_h', 'Q_h', 'W_UK,hᵀ', N, dh, r),
      `S_h = [q̃_h | q_R,h] · [ĉ | k_R]ᵀ · ${round(shape.scale)}`], t('layerSteps.cache.note'),
    [matrix('cache'), heads('qAbsorbed', qLabel)]);
  }
  return steps;
}

/**
 * What one cell of a checkpoint layer's stage was made from, in words.
 * @param {string} key  the stage (or 'x' / 'output')  @param {object} shape  model.stages' shape
 * @param {string[]} tokens  @param {{ h?: number, i: number, j: number }} at  @param {number} value
 * @param {{ t(key: string, params?: object): string }} i18n
 */
export function layerCellStory(key, shape, tokens, { h = 0, i, j }, value, { t }) {
  const { mla, H, dh, dr, dv, group, r } = sizesOf(shape);
  const tok = (k) => `“${tokens[k] ?? k}”`;
  const v = value === -Infinity ? '−∞' : fmt(value);
  const headOf = (width) => Math.floor(j / width);
  const who = (kv, width = dh) => (kv && !mla ? t('layerSteps.cell.kvHead', { g: headOf(width) }) : t('layerSteps.cell.head', { h: headOf(width) }));
  const upper = { q: 'Q', k: 'K', v: 'V', qNorm: 'Q', kNorm: 'K', qRotated: 'Q', kRotated: 'K' }[key];
  const before = (k) => (k === 'qRotated' || k === 'kRotated') && shape.qkNorm ? `${upper}_norm` : upper;
  const pair = ropePairs(shape) === 'adjacent' ? (j % 2 === 0 ? j + 1 : j - 1) : (j % dh < dh / 2 ? j + dh / 2 : j - dh / 2);
  switch (key) {
    case 'x': return t('layerSteps.cell.x', { i, j, v, tok: tok(i) });
    case 'q': case 'k': case 'v':
      if (mla && key !== 'q') {
        return t('layerSteps.cell.proj', { M: upper, i, j, v, src: 'ĉ', W: key === 'k' ? 'W_UK' : 'W_UV', bias: '',
          who: who(false, key === 'v' ? dv : dh), dim: j % (key === 'v' ? dv : dh) });
      }
      return t('layerSteps.cell.proj', { M: upper, i, j, v, src: mla && shape.queryRank ? 'c_Q' : 'X', W: mla && shape.queryRank ? 'W_UQ' : `W_${key}`,
        bias: shape.qkvBias && !mla ? ` + b_${key}[${j}]` : '', who: who(key !== 'q'), dim: j % dh });
    case 'qNorm': case 'kNorm': return t('layerSteps.cell.norm', { M: `${upper}_norm`, src: upper, i, j, v, who: who(key === 'kNorm'), dim: j % dh });
    case 'qRotated': case 'kRotated':
      return t('layerSteps.cell.rotated', { M: `${upper}_rot`, src: before(key), i, j, v, pair: pair % dh });
    case 'cq': return t('layerSteps.cell.cq', { i, j, v, tok: tok(i) });
    case 'c': return t('layerSteps.cell.c', { i, j, v, tok: tok(i) });
    case 'cNorm': return t('layerSteps.cell.cNorm', { i, j, v, tok: tok(i) });
    case 'qRope': return t('layerSteps.cell.qRope', { i, j, v, head: headOf(dr), dim: j % dr });
    case 'kRope': return t('layerSteps.cell.kRope', { i, j, v, tok: tok(i), H });
    case 'qHeads': case 'kHeads': case 'vHeads': {
      const M = key[0].toUpperCase();
      if (mla && key !== 'vHeads' && j >= dh) return t(`layerSteps.cell.${key[0]}Part`, { h, i, j, v, col: key === 'qHeads' ? h * dr + j - dh : j - dh });
      const width = key === 'vHeads' ? dv : dh;
      const src = mla || key === 'vHeads' || !shape.rope ? (shape.qkNorm && key !== 'vHeads' ? `${M}_norm` : M) : `${M}_rot`;
      if (!mla && key !== 'qHeads' && group > 1) {
        return t('layerSteps.cell.partShared', { M, h, i, j, v, src, col: h * width + j, a: h * group, b: (h + 1) * group - 1 });
      }
      return t('layerSteps.cell.part', { M, h, i, j, v, src, col: h * width + j });
    }
    case 'scores':
      if (value === -Infinity) return t('layerSteps.cell.masked', { h, i, j, q: tok(i), k: tok(j) });
      return t('layerSteps.cell.scores', { h, g: mla ? h : Math.floor(h / group), i, j, v, scale: round(shape.scale), q: tok(i), k: tok(j) });
    case 'attention': return t('layerSteps.cell.attention', { h, i, j, v, q: tok(i), k: tok(j) });
    case 'heads': return t('layerSteps.cell.heads', { h, g: mla ? h : Math.floor(h / group), i, j, v });
    case 'concat': return t('layerSteps.cell.concat', { i, j, v, h: Math.floor(j / dv), dim: j % dv });
    case 'output': return t('layerSteps.cell.output', { i, j, v, bias: shape.oBias ? ` + b_o[${j}]` : '' });
    case 'cache':
      return j < r ? t('layerSteps.cell.cacheLatent', { i, j, v, tok: tok(i) }) : t('layerSteps.cell.cacheRope', { i, j, v, col: j - r, tok: tok(i) });
    case 'qAbsorbed': return t('layerSteps.cell.qAbsorbed', { h, i, j, v, tok: tok(i) });
    default: return `${key}[${i}, ${j}] = ${v}`;
  }
}
