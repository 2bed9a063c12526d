// params-same-cost.js — the lesson's "the total parameters stay the same" under the parameter table
// (views/params.js): H heads of width D/H cost what one head of width D costs, 4·D² either way (the
// core's paramCount of both MHA shapes), and beside it what MQA, GQA and MLA save against MHA (the
// table's own rows).
import { el, showCoreError, variantName } from '../kit.js';
import '../i18n/catalogs/en/params.js';  // the English words it speaks

/** The core's counts: MHA with H heads of D/H, and with one head of width D (dHead left to the core). */
export async function measureSameCost(client, state) {
  const [heads, one] = await Promise.all([
    client.call('paramCount', { variant: 'mha', dModel: state.dModel, nHeads: state.nHeads }),
    client.call('paramCount', { variant: 'mha', dModel: state.dModel, nHeads: 1 }),
  ]);
  return { D: state.dModel, H: state.nHeads, heads: heads.total, one: one.total };
}

/**
 * The box's content: the two counts, the formula, the variants' savings (rows of the table:
 * { variant, params } or { variant, error }), or the core's refusal of H heads at this D.
 */
export function sameCostNodes(cost, rows, i18n) {
  const { t, fmt } = i18n;
  if (cost.error) return [el('h3', null, t('params.sameCost.title')), showCoreError(el('p', 'error-text'), cost.error, i18n)];
  const base = rows.find((r) => r.variant === 'mha' && !r.error);
  const savings = rows.filter((r) => r.variant !== 'mha' && !r.error && base)
    .map((r) => `${variantName(r.variant)} ${fmt.change((r.params.total - base.params.total) / base.params.total)}`);
  return [
    el('h3', null, t('params.sameCost.title')),
    el('ul', null,
      el('li', null, t('params.sameCost.heads', { count: cost.H, H: cost.H, dh: `${fmt.int(cost.D)}/${fmt.int(cost.H)}`, weights: fmt.int(cost.heads) })),
      el('li', null, t('params.sameCost.one', { D: cost.D, weights: fmt.int(cost.one) })),
      el('li', { className: 'formula', dataset: { role: 'same-cost-formula' } }, `4·D² = 4·${fmt.int(cost.D)}² = ${fmt.int(cost.one)}`)),
    el('p', 'note', t('params.sameCost.why')),
    savings.length ? el('p', { dataset: { role: 'savings' } }, t('params.sameCost.savings', { list: savings.join(' · ') })) : null,
  ];
}
