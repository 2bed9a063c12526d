// stages.js — the lesson's steps for the walkthrough view: which of the core's intermediate tensors
// each step shows, its formula with the sizes filled in, and what one cell of each tensor was made from.
// Pure (no DOM); the browser tests (tests/e2e/lesson.test.mjs) check every step's tensors against the core.
//
// `shape` is the resolved spec the core returns with returnIntermediates (variant, seqLen N, dModel D,
// nHeads H, nKvHeads G, dHead dh, latentRank r, ropeDim dr, rope, causal).

const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : v.toFixed(4));

/** Step ids in order for a shape (the URL's `step` takes one of them). */
export function stepIds(shape) {
  return lessonSteps(shape).map((s) => s.id);
}

/**
 * The steps of the lesson for this shape.
 * Each: { id, title, formula: string[], note, tensors: [{ key, label, kind: 'matrix' | 'heads', colour:
 * 'signed' | 'prob', bands?: number (column band width: heads), headLabel?: (j) => string }] }.
 * `key` is an intermediates stage name, or 'x' / 'output' (the input and the result).
 */
export function lessonSteps(shape) {
  const { variant, seqLen: N, dModel: D, nHeads: H, dHead: dh } = shape;
  const mla = variant === 'mla';
  const G = mla ? H : shape.nKvHeads;
  const r = shape.latentRank ?? 0, dr = mla ? shape.ropeDim ?? 0 : 0;
  const rope = !mla && Boolean(shape.rope);
  const group = H / G;
  const dqk = dh + dr;
  const kvLabel = (g) => (mla ? `head ${g}` : group === 1 ? `K/V head ${g}` : `K/V head ${g} → q ${g * group}–${(g + 1) * group - 1}`);
  const qLabel = (h) => (mla || group === 1 ? `head ${h}` : `head ${h} (K/V ${Math.floor(h / group)})`);
  const scale = mla && dr > 0 ? '√(dh + dr)' : '√dh';
  const scaleValue = mla && dr > 0 ? `√(dh + dr) = √${dqk} ≈ ${Math.sqrt(dqk).toFixed(2)}` : `√dh = √${dh} ≈ ${Math.sqrt(dh).toFixed(2)}`;
  const steps = [];

  steps.push({
    id: 'input', title: 'Input: one row per token',
    formula: [`X  (N, D) = (${N}, ${D})`],
    note: rope ? 'Each token\'s embedding; with RoPE, positions are added later, inside attention.'
      : 'Each token\'s embedding plus its sinusoidal position.',
    tensors: [{ key: 'x', label: 'X', kind: 'matrix', colour: 'signed' }],
  });

  if (!mla) {
    steps.push({
      id: 'project', title: 'Project: queries, keys and values',
      formula: [`Q = X · W_q:  (${N}, ${D}) · (${D}, ${H * dh}) → (${N}, ${H * dh})`,
        `K = X · W_k:  (${N}, ${D}) · (${D}, ${G * dh}) → (${N}, ${G * dh})`,
        `V = X · W_v:  (${N}, ${D}) · (${D}, ${G * dh}) → (${N}, ${G * dh})`],
      note: variant === 'mha' ? `Every one of the ${H} heads gets its own ${dh} columns of Q, K and V.`
        : `Only K and V shrink: ${G} K/V ${G === 1 ? 'head' : 'heads'} of ${dh} columns against ${H} query heads.`,
      tensors: [
        { key: 'q', label: 'Q', kind: 'matrix', colour: 'signed', bands: dh },
        { key: 'k', label: 'K', kind: 'matrix', colour: 'signed', bands: dh },
        { key: 'v', label: 'V', kind: 'matrix', colour: 'signed', bands: dh },
      ],
    });
  } else {
    steps.push({
      id: 'latent', title: 'Compress: the latent c, and the queries',
      formula: [`c = X · W_DKV:  (${N}, ${D}) · (${D}, ${r}) → (${N}, ${r})`,
        `Q = X · W_q:  (${N}, ${D}) · (${D}, ${H * dh}) → (${N}, ${H * dh})`],
      note: `Keys and values will both be read from c: ${r} numbers per token instead of 2 · H · dh = ${2 * H * dh}.`,
      tensors: [
        { key: 'c', label: 'c (latent)', kind: 'matrix', colour: 'signed' },
        { key: 'q', label: 'Q', kind: 'matrix', colour: 'signed', bands: dh },
      ],
    });
    steps.push({
      id: 'up', title: 'Up-project: keys and values from the latent',
      formula: [`K = c · W_UK:  (${N}, ${r}) · (${r}, ${H * dh}) → (${N}, ${H * dh})`,
        `V = c · W_UV:  (${N}, ${r}) · (${r}, ${H * dh}) → (${N}, ${H * dh})`],
      note: 'Every head gets its own keys and values back, all made from the same small latent.',
      tensors: [
        { key: 'k', label: 'K', kind: 'matrix', colour: 'signed', bands: dh },
        { key: 'v', label: 'V', kind: 'matrix', colour: 'signed', bands: dh },
      ],
    });
    if (dr > 0) {
      steps.push({
        id: 'rope', title: 'Decoupled RoPE: positions outside the latent',
        formula: [`q_R = RoPE(X · W_QR):  (${N}, ${D}) · (${D}, ${H * dr}) → (${N}, ${H * dr})`,
          `k_R = RoPE(X · W_KR):  (${N}, ${D}) · (${D}, ${dr}) → (${N}, ${dr}), shared by all ${H} heads`],
        note: 'RoPE cannot pass through the latent (it would break absorbing W_UK), so a small extra part carries positions.',
        tensors: [
          { key: 'qRope', label: 'q_R', kind: 'matrix', colour: 'signed', bands: dr },
          { key: 'kRope', label: 'k_R', kind: 'matrix', colour: 'signed' },
        ],
      });
    }
  }

  const splitFormula = [`(N, H·dh) → reshape (${N}, ${H}, ${dh}) → transpose (${H}, ${N}, ${dh})`];
  if (!mla && G !== H) splitFormula.push(`K, V: (${N}, ${G * dh}) → (${G}, ${N}, ${dh}); K/V head g serves query heads g·${group} … g·${group}+${group - 1}`);
  if (mla && dr > 0) splitFormula.push(`q_h ← [q_h | q_R,h]  and  k_h ← [k_h | k_R]:  width dh + dr = ${dqk}`);
  steps.push({
    id: 'split', title: 'Split into heads',
    formula: splitFormula,
    note: (!mla && G !== H
      ? `PyTorch: k.repeat_interleave(${group}, dim=0) copies each K/V head for its ${group} query heads (enable_gqa=True does it without copies). `
      : 'One reshape and one transpose, no loop. ') + (rope ? 'RoPE rotates every q and k head by its position here.' : ''),
    tensors: [
      { key: 'qHeads', label: 'Q heads', kind: 'heads', colour: 'signed', headLabel: qLabel },
      { key: 'kHeads', label: 'K heads', kind: 'heads', colour: 'signed', headLabel: kvLabel },
      { key: 'vHeads', label: 'V heads', kind: 'heads', colour: 'signed', headLabel: kvLabel },
    ],
  });
  steps.push({
    id: 'scores', title: 'Scores: every query against every key',
    formula: [`S_h = Q_h · K_gᵀ / ${scale}`, `(${N}, ${dqk}) · (${dqk}, ${N}) → (${N}, ${N}), for each of ${H} heads; ${scaleValue}`],
    note: shape.causal ? 'Grey cells are masked (a key after its query): they get weight 0 in the next step.'
      : 'Bidirectional: every token sees every other one.',
    tensors: [{ key: 'scores', label: 'S', kind: 'heads', colour: 'signed', masked: shape.causal, headLabel: qLabel }],
  });
  steps.push({
    id: 'softmax', title: 'Softmax: each row becomes weights that sum to 1',
    formula: [`P_h = softmax(S_h) row by row:  (${N}, ${N}) per head`],
    note: 'These are the attention maps: row i says how much token i reads each token.',
    tensors: [{ key: 'attention', label: 'P', kind: 'heads', colour: 'prob', masked: shape.causal, headLabel: qLabel }],
  });
  steps.push({
    id: 'weighted', title: 'Weighted sum of the values',
    formula: [`O_h = P_h · V_g:  (${N}, ${N}) · (${N}, ${dh}) → (${N}, ${dh}), for each of ${H} heads`],
    note: 'Heads never talk during attention: each one mixes the values with its own weights.',
    tensors: [{ key: 'heads', label: 'O heads', kind: 'heads', colour: 'signed', headLabel: qLabel }],
  });
  steps.push({
    id: 'concat', title: 'Concatenate the heads',
    formula: [`(${H}, ${N}, ${dh}) → transpose (${N}, ${H}, ${dh}) → reshape (${N}, ${H * dh})`],
    note: 'The heads sit side by side again, one band of columns each.',
    tensors: [{ key: 'concat', label: 'concat', kind: 'matrix', colour: 'signed', bands: dh }],
  });
  steps.push({
    id: 'output', title: 'Output projection W_o: where heads meet',
    formula: [`Y = concat · W_o:  (${N}, ${H * dh}) · (${H * dh}, ${D}) → (${N}, ${D})`],
    note: 'Every output column mixes every head.',
    tensors: [{ key: 'output', label: 'Y', kind: 'matrix', colour: 'signed' }],
  });
  if (mla) {
    steps.push({
      id: 'cache', title: 'What the KV cache keeps, and the absorbed form',
      formula: [`cache row = [c | k_R]:  ${r} + ${dr} = ${r + dr} numbers per token and layer (MHA: 2 · H · dh = ${2 * H * dh})`,
        `q̃_h = Q_h · W_UK,hᵀ:  (${N}, ${dh}) · (${dh}, ${r}) → (${N}, ${r})`,
        `S_h = [q̃_h | q_R,h] · [c | k_R]ᵀ / ${scale}`],
      note: 'Decoding never rebuilds K or V: W_UK folds into the query and W_UV into W_o, so attention reads the cached latent directly.',
      tensors: [
        { key: 'cache', label: 'cache [c | k_R]', kind: 'matrix', colour: 'signed' },
        { key: 'qAbsorbed', label: 'q̃ (absorbed queries)', kind: 'heads', colour: 'signed', headLabel: qLabel },
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
 */
export function cellStory(key, shape, tokens, { h = 0, i, j }, value) {
  const mla = shape.variant === 'mla';
  const { nHeads: H, dHead: dh } = shape;
  const G = mla ? H : shape.nKvHeads;
  const group = H / G, r = shape.latentRank ?? 0, dr = mla ? shape.ropeDim ?? 0 : 0;
  const tok = (k) => `"${tokens[k] ?? k}"`;
  const v = fmt(value);
  const rot = !mla && shape.rope ? `, rotated by RoPE at position ${i}` : '';
  switch (key) {
    case 'x': return `X[${i}, ${j}] = ${v}: feature ${j} of token ${i} ${tok(i)}.`;
    case 'q': return `Q[${i}, ${j}] = ${v} = row ${i} of X · column ${j} of W_q (head ${Math.floor(j / dh)}, dimension ${j % dh}).`;
    case 'k': case 'v': {
      const M = key.toUpperCase(), W = mla ? (key === 'k' ? 'W_UK' : 'W_UV') : `W_${key}`;
      const src = mla ? 'c' : 'X';
      const who = mla ? `head ${Math.floor(j / dh)}` : `K/V head ${Math.floor(j / dh)}`;
      return `${M}[${i}, ${j}] = ${v} = row ${i} of ${src} · column ${j} of ${W} (${who}, dimension ${j % dh}).`;
    }
    case 'c': return `c[${i}, ${j}] = ${v} = row ${i} of X · column ${j} of W_DKV: latent dimension ${j} of token ${tok(i)}.`;
    case 'qRope': return `q_R[${i}, ${j}] = ${v}: row ${i} of X · column ${j} of W_QR, rotated by RoPE at position ${i} (head ${Math.floor(j / dr)}).`;
    case 'kRope': return `k_R[${i}, ${j}] = ${v}: row ${i} of X · column ${j} of W_KR, rotated by RoPE at position ${i}; shared by all ${H} heads.`;
    case 'qHeads':
      if (mla && j >= dh) return `Q_${h}[${i}, ${j}] = ${v} = q_R[${i}, ${h * dr + j - dh}] (the RoPE part of head ${h}).`;
      return `Q_${h}[${i}, ${j}] = ${v} = Q[${i}, ${h * dh + j}]${rot}.`;
    case 'kHeads': {
      if (mla && j >= dh) return `K_${h}[${i}, ${j}] = ${v} = k_R[${i}, ${j - dh}] (the RoPE key, the same for every head).`;
      const serves = !mla && group > 1 ? `; serves query heads ${h * group}–${(h + 1) * group - 1}` : '';
      return `K_${h}[${i}, ${j}] = ${v} = K[${i}, ${h * dh + j}]${rot}${serves}.`;
    }
    case 'vHeads': {
      const serves = !mla && group > 1 ? `; serves query heads ${h * group}–${(h + 1) * group - 1}` : '';
      return `V_${h}[${i}, ${j}] = ${v} = V[${i}, ${h * dh + j}]${serves}.`;
    }
    case 'scores': {
      const g = Math.floor(h / group);
      const masked = shape.causal && j > i ? `; masked: key ${j} comes after query ${i}, so its weight will be 0` : '';
      return `S_${h}[${i}, ${j}] = Q_${h}[${i}] · K_${g}[${j}] / √${dh + dr} = ${v}: query ${tok(i)} against key ${tok(j)}${masked}.`;
    }
    case 'attention':
      if (shape.causal && j > i) return `P_${h}[${i}, ${j}] = 0: masked, ${tok(i)} cannot see the later token ${tok(j)}.`;
      return `P_${h}[${i}, ${j}] = ${v}: how much ${tok(i)} reads ${tok(j)} in head ${h} (softmax of row ${i} of S_${h}; the row sums to 1).`;
    case 'heads': {
      const g = Math.floor(h / group);
      return `row ${i} of head ${h}'s output: O_${h}[${i}, ${j}] = Σ_k P_${h}[${i}, k] · V_${g}[k, ${j}] = ${v}.`;
    }
    case 'concat': return `concat[${i}, ${j}] = ${v} = O_${Math.floor(j / dh)}[${i}, ${j % dh}] (head ${Math.floor(j / dh)}'s output).`;
    case 'output': return `Y[${i}, ${j}] = ${v} = row ${i} of concat · column ${j} of W_o: every head contributes.`;
    case 'cache':
      return j < r ? `cache[${i}, ${j}] = c[${i}, ${j}] = ${v}: latent dimension ${j} of token ${tok(i)}.`
        : `cache[${i}, ${j}] = k_R[${i}, ${j - r}] = ${v}: the RoPE key of token ${tok(i)}.`;
    case 'qAbsorbed': return `q̃_${h}[${i}, ${j}] = Q_${h}[${i}] · W_UK[${j}, head ${h}] = ${v}: query ${tok(i)} read in latent space.`;
    default: return `${key}[${i}, ${j}] = ${v}`;
  }
}
