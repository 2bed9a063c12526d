// sources/trained.js — the second source: a model trained in one of the page's labs ("Inspect in the
// attention view"). Its tokens are the lab's example sequence (token ids); its maps are the trainer's
// own (trainer.attention: every layer, every head); its geometry is the core's resolved shape of the
// model's attention; each head carries the role the lab names from its scores (trainer.headScores,
// labs/verdicts.js roleOf: the same words as Lab 4's table and maps, layers and heads counted from 0
// as everywhere on the page). It has no walkthrough stages and no decoder (sources that lack them say so).
// The interface every source implements: web/ARCHITECTURE.md, "Sources".
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';
import { attentionSpecOf } from './trained-spec.js';
import { roleOf } from '../labs/verdicts.js';
import '../i18n/catalogs/en/sources.js';  // the English words it speaks

/**
 * @param {object} ctx  the view ctx (client, inspectModel, i18n)
 * @param {{ key: string, tokens: number[], labels: string[], title: string, steps?: number }} model
 */
export function trainedSource(ctx, model) {
  const i18n = ctx.i18n ?? EN;
  const { t } = i18n;
  let cached = null;  // { weights (layers, H, N, N), layers, heads, n, shape, scores }
  const load = async () => {
    if (cached) return cached;
    const [att, info, scores] = await Promise.all([
      ctx.client.call('trainerAttention', model.key, model.tokens),
      ctx.client.call('trainerInfo', model.key),
      ctx.client.call('trainerHeadScores', model.key).catch(() => []),  // no scores: no roles, the maps still draw
    ]);
    if (!info.spec?.model) throw new Error(`the trained model ${model.title} does not say its geometry`);
    const shape = await ctx.client.call('resolveShape', attentionSpecOf(info.spec.model));
    cached = { ...att, shape, scores, seqLen: info.spec.seqLen ?? model.tokens.length };
    return cached;
  };
  return {
    id: 'trained',
    title: t('sources.trained', { title: model.title }),
    key: (state) => `trained:${model.key}:${model.steps ?? ''}:${state.layer ?? 0}`,
    tokens: () => model.labels,
    note: () => '',
    async maps(state, { layer = 0 } = {}) {
      const m = await load();
      const l = Math.min(Math.max(0, layer | 0), m.layers - 1);
      const size = m.heads * m.n * m.n;
      const roles = Array.from({ length: m.heads }, (_, h) => {
        const s = m.scores.find((x) => x.layer === l && x.head === h);
        return s ? roleOf(s, i18n, m.seqLen) : '';
      });
      return { tokens: model.labels, shape: m.shape, layer: l, layers: m.layers, causal: true, roles,
        weights: m.weights.subarray(l * size, (l + 1) * size) };
    },
    stages: null,
    decoder: null,
    /** What the heatmap view adds to its summary: the way back to the lesson's example. */
    extras: () => [' ', el('button', { type: 'button', dataset: { action: 'uninspect' }, onclick: () => ctx.inspectModel(null) },
      t('sources.back'))],
  };
}
