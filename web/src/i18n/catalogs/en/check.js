// check.js — the page's words in English: "Check yourself" (views/check.js, lesson/questions.js).
// Imported by the code that speaks them, so they come with its chunk; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  'check.intro': 'Answer, then press Check: every number in an answer and its explanation is computed by the core. "Show me" loads the shape in the section that shows it.',
  'check.answerLabel': 'Your answer (a number)',
  'check.check': 'Check',
  'check.showMe': 'Show me',
  'check.right': 'Right.',
  'check.wrong': 'Not quite.',
  'check.problem.empty': 'Type a number first.',
  'check.problem.notNumber': '“{text}” is not a number: type digits, such as 12 or 0.5.',
  'check.problem.noChoice': 'Choose one of the answers first.',
  'check.cannot': 'The core could not work out this answer.',
  'check.cannotShow': 'The core could not work out the shape to show.',
  'check.shownHere': 'Loaded in “{where}”.',
  'check.shownThere': 'Opened in the full playground, in a new tab: see “{where}”.',
  'check.noPlayground': 'This page shows only this section: open the full Attention Playground to see it.',

  // ---- the questions (lesson/questions.js), in lesson order ----
  'check.q.headWidth.text': 'd_model = 512 with 8 heads: how wide is each head (d_head)?',
  'check.q.headWidth.why': 'd_head = d_model / n_heads = {D} / {H} = {dh}: each head gets its own {dh} columns of Q, K and V.',

  'check.q.headOutput.text': 'What shape does one head return, before the heads are concatenated?',
  'check.q.headOutput.nD': '(N, d_model)',
  'check.q.headOutput.nd': '(N, d_head)',
  'check.q.headOutput.nn': '(N, N)',
  'check.q.headOutput.hd': '(n_heads, d_head)',
  'check.q.headOutput.why': 'Each head mixes its values with its own weights: P_h · V_h is (N, N) · (N, d_head) → (N, d_head), here (N, {dh}) at d_model = {D} with {H} heads. (N, N) is its attention map; (N, d_model) comes only after the {H} heads are set side by side.',

  'check.q.wo.text': 'What does W_o do?',
  'check.q.wo.split': 'It splits X into the heads.',
  'check.q.wo.scale': 'It scales the scores by √d_head.',
  'check.q.wo.mix': 'It mixes the concatenated heads back into d_model: where the heads meet.',
  'check.q.wo.cache': 'It stores the keys and values for decoding.',
  'check.q.wo.why': 'Y = concat · W_o: (N, d_model) · (d_model, d_model) → (N, d_model), {wo} weights at d_model = {D}. Heads never talk during attention; in W_o every output column reads every head.',

  'check.q.sameCost.text': 'How many weights do W_q, W_k, W_v and W_o of MHA have together at d_model = 64 with 8 heads?',
  'check.q.sameCost.why': '{heads} with 8 heads, and {one} with one head of width {D}: 4 · d_model² either way. Each head projects to d_model / n_heads columns, so the heads together make d_model × d_model again.',

  'check.q.kvHeadOf.text': 'GQA with 8 query heads and 2 K/V heads, heads counted from 0: which K/V head does query head 5 read?',
  'check.q.kvHeadOf.why': 'Each K/V head serves {size} query heads in a row (as repeat_interleave copies it): query heads {first}–{last} read K/V head {g}.',

  'check.q.kvRatio.text': 'Llama 3 70B has 64 query heads and 8 K/V heads (GQA). How many times smaller is its KV cache than MHA\'s with the same 64 heads?',
  'check.q.kvRatio.why': 'Per token and layer (d_head = 128), MHA caches 2 · H · d_head = {mha} numbers and GQA 2 · G · d_head = {gqa}: {ratio} times fewer, at every context length.',

  'check.q.mlaCache.text': 'What does MLA keep in the KV cache for each token?',
  'check.q.mlaCache.kv': 'K and V of every head, as MHA does.',
  'check.q.mlaCache.latent': 'A small latent c (rank r) and one RoPE key k_R shared by all heads.',
  'check.q.mlaCache.queries': 'The queries of every head.',
  'check.q.mlaCache.none': 'Nothing: MLA needs no cache.',
  'check.q.mlaCache.why': 'K and V are rebuilt from c at attention time (or the up-projections are absorbed), so only c and k_R are cached: with r = {r} and dr = {dr}, {mla} numbers per token and layer against MHA\'s {mha}.',

  'check.q.cacheBound.text': 'A decoder is cache-bound: every new token reads the whole KV cache. Which change shrinks that cache and keeps every query head?',
  'check.q.cacheBound.moreHeads': 'More heads, each narrower, at the same d_model.',
  'check.q.cacheBound.fewerKv': 'Fewer K/V heads shared by groups of query heads (GQA), or a cached latent (MLA).',
  'check.q.cacheBound.widerWo': 'A wider W_o.',
  'check.q.cacheBound.mask': 'A causal mask.',
  'check.q.cacheBound.why': 'At d_model = {D} with {H} query heads, MHA caches {mha} numbers per token and layer (with twice the heads, still {twice}), GQA with {G} K/V heads {gqa}, and MLA with r = {r}, dr = {dr} only {mla}.',

  'check.q.badWidth.text': 'You want d_model = 510 and 8 heads. What happens?',
  'check.q.badWidth.fraction': 'Each head is 63.75 wide.',
  'check.q.badWidth.round': 'd_head is rounded down to 63 and the 6 columns left over are dropped.',
  'check.q.badWidth.refused': 'It is refused: take a d_model that 8 divides, a head count that divides 510, or set d_head on its own.',
  'check.q.badWidth.why': '510 is not a multiple of 8. With d_model = 512, d_head = {dh}; with d_head = {own} set on its own, 510 works (the heads then need not fill d_model).',
});
