// zoo-notes.js — what the page says under a zoo model's maps (sources/zoo-model.js), all from the
// manifest: how the models were trained (steps, seeds, CPU-hours, a copying curriculum if any), and for the
// previous-token and induction scores whether any shipped head reaches the floor a clear head of that
// kind would (FLOORS), else the best one measured.
import { zooLabel, zooRows } from './zoo-stats.js';
import '../i18n/catalogs/en/zoo.js';  // the English words it speaks

/** The scores a clear previous-token head and a clear induction head reach on the manifest's probes. */
export const FLOORS = { previousToken: 0.7, induction: 0.5 };

/** The highest score of `field` over every shipped head of every model: { value, model (a zooRows row), layer, head }. */
export function bestHead(manifest, field) {
  const rows = zooRows(manifest);
  let best = null;
  manifest.models.forEach((m, i) => {
    for (const h of m.headScores) if (!best || h[field] > best.value) best = { value: h[field], model: rows[i], layer: h.layer, head: h.head };
  });
  return best;
}

/**
 * The notes, in the page's language: [how they were trained, previous token against its floor, induction against its floor].
 * @param {object} manifest  web/zoo/manifest.json  @param {(key: string, params?: object) => string} t
 */
export function zooNotes(manifest, t) {
  const tr = manifest.training;
  const how = [t('zoo.trainedHow', { steps: tr.steps, count: tr.seeds.length, seeds: tr.seeds.join(', '), hours: String(tr.cpuHours),
    tokens: tr.batchSize * tr.seqLen }), tr.repeatFraction > 0 ? t('zoo.curriculum', { percent: String(Math.round(tr.repeatFraction * 100)) }) : '',
  tr.repeatRandomFraction > 0 ? t('zoo.curriculumRandom', { percent: String(Math.round(tr.repeatRandomFraction * 100)) }) : '']
    .filter(Boolean).join(' ');
  const floors = Object.entries(FLOORS).map(([field, floor]) => {
    const best = bestHead(manifest, field);
    if (!best) return '';
    const params = { floor: floor.toFixed(1), best: best.value.toFixed(2), model: zooLabel(best.model, { t }), layer: best.layer, head: best.head };
    return t(`zoo.floor.${field}.${best.value >= floor ? 'met' : 'missed'}`, params);
  });
  return [how, ...floors].filter(Boolean);
}
