// zoo-notes.js — what the page says under a zoo model's maps (sources/zoo-model.js), all from the
// manifest: how the models were trained (steps, seeds, CPU-hours, a synthetic start and a copying
// curriculum if any), and for the previous-token and induction scores whether the drawn model has a
// head that reaches the floor a clear head of that kind would (FLOORS, zoo-stats.js), its best one measured (or, when
// no head scores enough for a label, labs/role-baseline.js, just that), and which
// other models have none.
import { FLOORS, zooLabel, zooRows } from './zoo-stats.js';
import { roleBar, standsOut, uniformScores } from '../labs/role-baseline.js';
import '../i18n/catalogs/en/zoo.js';  // the English words it speaks

/** A model's highest score of `field` over its shipped heads: { value, layer, head } (null without heads). */
export function bestHead(model, field) {
  let best = null;
  for (const h of model.headScores) if (!best || h[field] > best.value) best = { value: h[field], layer: h.layer, head: h.head };
  return best;
}

/**
 * The notes, in the page's language: [how they were trained, then for the previous-token and the
 * induction score whether the drawn model `id` has a clear head of that kind (its best against the
 * floor), and which other models of the zoo have none].
 * @param {object} manifest  web/zoo/manifest.json  @param {(key: string, params?: object) => string} t
 * @param {string} id  the drawn model's manifest id
 */
export function zooNotes(manifest, t, id) {
  const tr = manifest.training;
  const syn = tr.synthetic;
  const model = manifest.models.find((m) => m.id === id) ?? manifest.models[0];
  const stretches = model.synthetic?.stretches;  // the drawn model's shortest and longest stretch
  const how = [t('zoo.trainedHow', { steps: tr.steps, count: tr.seeds.length, seeds: tr.seeds.join(', '), hours: String(tr.cpuHours),
    tokens: tr.batchSize * tr.seqLen }),
  syn ? t(syn.lengthen ? 'zoo.syntheticLengthen' : stretches ? 'zoo.syntheticStretches' : 'zoo.synthetic', {
    steps: model.synthetic?.steps ?? syn.steps, length: syn.seqLen, min: stretches?.[0] ?? syn.minSegment, max: stretches?.[1],
    // a start whose windows lengthen (scripts/zoo.mjs --lengthen): its later stages' lengths, cap and score
    lengths: syn.lengthen?.map((x) => x.seqLen).join(', '), later: syn.lengthen?.[0]?.steps, until: syn.untilInduction }) : '',
  tr.repeatFraction > 0 ? t('zoo.curriculum', { percent: String(Math.round(tr.repeatFraction * 100)) }) : '',
  tr.repeatRandomFraction > 0 ? t('zoo.curriculumRandom', { percent: String(Math.round(tr.repeatRandomFraction * 100)) }) : '']
    .filter(Boolean).join(' ');
  const rows = zooRows(manifest);
  const uniform = uniformScores(tr.seqLen);  // the probes are windows of seqLen tokens
  const floors = Object.entries(FLOORS).map(([field, floor]) => {
    const best = bestHead(model, field);
    if (!best) return '';
    const outcome = best.value >= floor ? 'met' : standsOut(best.value, uniform[field]) ? 'missed' : 'none';
    const note = t(`zoo.floor.${field}.${outcome}`, { floor: floor.toFixed(1), best: best.value.toFixed(2), layer: best.layer, head: best.head,
      uniform: uniform[field].toFixed(2), bar: roleBar(uniform[field]).toFixed(2) });
    const without = manifest.models.map((m, i) => (m !== model && (bestHead(m, field)?.value ?? 0) < floor ? zooLabel(rows[i], { t }) : ''))
      .filter(Boolean);
    const others = manifest.models.length - 1;
    const rest = !others || !without.length ? '' : without.length === others ? t('zoo.floor.noOther') : t('zoo.floor.without', { models: without.join('; ') });
    return [note, rest].filter(Boolean).join(' ');
  });
  return [how, ...floors].filter(Boolean);
}
