// questions.js — "Check yourself" (views/check.js): the questions in lesson order. Each one has
//   id        its words in the catalogs: check.q.<id>.text (the question), .why (the explanation, with
//             the measured numbers as parameters) and .<choice> (each choice's text)
//   kind      'number' (typed) or 'choice' (one of `choices`, `right` being the right one)
//   measure   (client) => Promise<{ answer?, params, refusal? }>: the answer of a number question and
//             every number of the explanation, from the core (the worker's methods); nothing here
//             computes or types an answer
//   show      (client) => Promise<{ section, patch, field? }>: the section of the page that shows it and
//             the state that loads it there ('controls': the shape form, `field` the one to focus)
// Pure (no DOM): tests/node/web-check.test.mjs runs every measure on the core.
import { playgroundShape } from '../parts/playground-shape.js';

/** One token of one layer, in elements: the core's kvCacheBytes request. */
const perToken = (q) => ({ nLayers: 1, seqLen: 1, batch: 1, bytesPerElement: 1, ...q });
const at = (section, patch, field) => async () => ({ section, patch, field });

/** The lesson's example block (4 heads at d_model 64) and the GQA of the maps (8 query heads, 2 K/V heads). */
const LESSON = { variant: 'mha', dModel: 64, nHeads: 4 };
const GQA = { variant: 'gqa', dModel: 64, nHeads: 8, nKvHeads: 2 };

export const QUESTIONS = [
  {
    id: 'headWidth', kind: 'number',
    async measure(client) {
      const s = await client.call('resolveShape', { variant: 'mha', dModel: 512, nHeads: 8 });
      return { answer: s.dHead, params: { D: s.dModel, H: s.nHeads, dh: s.dHead } };
    },
    show: at('walkthrough', { variant: 'mha', dModel: 512, nHeads: 8, dHead: 0, step: 'split' }),
  },
  {
    id: 'headOutput', kind: 'choice', choices: ['nD', 'nd', 'nn', 'hd'], right: 'nd',
    async measure(client) {
      const s = await client.call('resolveShape', LESSON);
      return { params: { D: s.dModel, H: s.nHeads, dh: s.dHead } };
    },
    show: at('walkthrough', { ...LESSON, dHead: 0, step: 'weighted' }),
  },
  {
    id: 'wo', kind: 'choice', choices: ['split', 'scale', 'mix', 'cache'], right: 'mix',
    async measure(client) {
      const p = await client.call('paramCount', LESSON);
      return { params: { D: LESSON.dModel, wo: p.wo } };
    },
    show: at('walkthrough', { ...LESSON, dHead: 0, step: 'output' }),
  },
  {
    id: 'sameCost', kind: 'number',
    async measure(client) {
      const [heads, one] = await Promise.all([client.call('paramCount', { variant: 'mha', dModel: 64, nHeads: 8 }),
        client.call('paramCount', { variant: 'mha', dModel: 64, nHeads: 1 })]);
      return { answer: heads.total, params: { D: 64, heads: heads.total, one: one.total } };
    },
    show: at('params', { variant: 'mha', dModel: 64, nHeads: 8, dHead: 0 }),
  },
  {
    id: 'kvHeadOf', kind: 'number',
    async measure(client) {
      const s = await client.call('resolveShape', GQA);
      const g = s.kvHeadOf[5];
      return { answer: g, params: { g, first: s.kvHeadOf.indexOf(g), last: s.kvHeadOf.lastIndexOf(g), size: s.nHeads / s.nKvHeads } };
    },
    show: at('heatmap', { ...GQA, dHead: 0, sel: '' }),
  },
  {
    id: 'kvRatio', kind: 'number',
    async measure(client) {
      const [mha, gqa] = await client.call('kvCacheBytesMany', [perToken({ variant: 'mha', nHeads: 64, dHead: 128 }),
        perToken({ variant: 'gqa', nHeads: 64, nKvHeads: 8, dHead: 128 })]);
      return { answer: mha / gqa, params: { mha, gqa, ratio: mha / gqa } };
    },
    // Llama 3 70B's heads at the width the maps can draw (parts/playground-shape.js), MHA beside it.
    async show(client) {
      const { patch } = await playgroundShape(client, { variant: 'gqa', dModel: 8192, nHeads: 64, nKvHeads: 8, dHead: 128 });
      return { section: 'kv-chart', patch: { ...patch, kvVariants: 'mha,gqa' } };
    },
  },
  {
    id: 'mlaCache', kind: 'choice', choices: ['kv', 'latent', 'queries', 'none'], right: 'latent',
    async measure(client) {
      const [mla, mha] = await client.call('resolveShapes', [{ ...LESSON, variant: 'mla', latentRank: 16, ropeDim: 4 }, LESSON]);
      return { params: { r: mla.latentRank, dr: mla.ropeDim, mla: mla.cacheFloatsPerToken, mha: mha.cacheFloatsPerToken } };
    },
    show: at('walkthrough', { ...LESSON, variant: 'mla', dHead: 0, latentRank: 16, ropeDim: 4, step: 'cache' }),
  },
  {
    id: 'cacheBound', kind: 'choice', choices: ['moreHeads', 'fewerKv', 'widerWo', 'mask'], right: 'fewerKv',
    async measure(client) {
      const D = 512, H = 8;
      const [mha, twice, gqa, mla] = await client.call('resolveShapes', [{ variant: 'mha', dModel: D, nHeads: H },
        { variant: 'mha', dModel: D, nHeads: 2 * H }, { variant: 'gqa', dModel: D, nHeads: H, nKvHeads: 2 },
        { variant: 'mla', dModel: D, nHeads: H, latentRank: 64, ropeDim: 16 }]);
      return { params: { D, H, G: gqa.nKvHeads, r: mla.latentRank, dr: mla.ropeDim, mha: mha.cacheFloatsPerToken,
        twice: twice.cacheFloatsPerToken, gqa: gqa.cacheFloatsPerToken, mla: mla.cacheFloatsPerToken } };
    },
    show: at('params', { variant: 'gqa', dModel: 512, nHeads: 8, nKvHeads: 2, dHead: 0, latentRank: 64, ropeDim: 16 }),
  },
  {
    id: 'badWidth', kind: 'choice', choices: ['fraction', 'round', 'refused'], right: 'refused',
    async measure(client) {
      const refusal = await client.call('resolveShape', { variant: 'mha', dModel: 510, nHeads: 8 }).then(() => null, (e) => e);
      if (!refusal) throw new Error('the core accepted dModel 510 with 8 heads');
      const [fits, own] = await Promise.all([client.call('resolveShape', { variant: 'mha', dModel: 512, nHeads: 8 }),
        client.call('resolveShape', { variant: 'mha', dModel: 510, nHeads: 8, dHead: 64 })]);
      return { refusal, params: { dh: fits.dHead, own: own.dHead } };
    },
    show: at('controls', { variant: 'mha', dModel: 510, nHeads: 8, dHead: 0 }, 'dModel'),
  },
];
