// model.js — a real model: "Open a model" (a Hugging Face checkpoint from a folder, files, a drop or
// ?model=), then, for the sentence, the model's most likely next tokens, the heads' roles on a probe,
// and every layer's maps at a glance, grouped by K/V head (parts/model-overview.js). The large maps,
// the layer picker and the decode view draw the same model (sources/pretrained.js).
import modelCss from '../styles/model.css?inline';
import { coreDetail, createLatest, el, setViewState, useStyles } from '../kit.js';
import { messageNodes } from '../i18n/nodes.js';
import { legend } from '../render/colour.js';
import { createReadout } from '../render/heatmap.js';
import { createModelOverview } from '../parts/model-overview.js';
import { nextTokens, rolesTable } from '../parts/model-readings.js';
import { createOpenModel } from '../parts/open-model.js';
import { modelProbes } from '../parts/model-probe.js';
import '../i18n/catalogs/en/model.js';  // the English words it speaks

const MAPS_MARK = 'attention-playground:model-maps';

export function createModelView(root, ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  const latest = createLatest(root);
  const opener = createOpenModel(ctx);
  const summary = el('p', { className: 'note', dataset: { role: 'model-summary' } });
  const next = el('div', 'mo-next-box');
  const roles = el('div', 'mo-roles-box');
  const tools = el('div', 'view-tools');
  const readout = createReadout(t('mo.hint'));
  const overview = createModelOverview(i18n);
  const body = el('div', { className: 'mo-body', hidden: true },
    el('h3', 'mo-title', t('mo.next')), next, el('h3', 'mo-title', t('mo.roles')), roles,
    el('h3', 'mo-title', t('mo.layers')), tools, readout, overview.element);
  useStyles(root, 'model', modelCss);
  root.replaceChildren(opener.element, summary, body);
  let shown = '', state = null;
  const roleCache = new Map();  // model key -> Promise<{ probe, scores }>
  const rolesKnown = new Set();  // model keys whose roles have come

  const unwatch = ctx.watchModel(() => {
    opener.show(ctx.modelJob(), ctx.model());
    if (!ctx.modelJob() || ctx.modelJob().error) setViewState(root, ctx.modelJob()?.error ? 'error' : 'ready', root.result ?? { opened: false });
  });

  /** The heads' scores on the model's probes (parts/model-probe.js: ordinary tokens, BOS first where the model uses one). */
  const rolesOf = (source) => {
    const k = source.opened.key;
    if (!roleCache.has(k)) {
      const r = modelProbes(source, 0).then((probe) => ctx.client.call('pretrainedHeadRoles', k, { probes: probe.probes })
        .then(({ scores }) => ({ probe, scores })));
      r.then(() => rolesKnown.add(k), () => roleCache.delete(k));
      roleCache.set(k, r);
    }
    return roleCache.get(k);
  };

  /**
   * The sentence's readings: the next tokens and every layer's maps. `r` (the heads' roles on the
   * probes) is null while they are measured: the maps come first (the probes are four more forwards of
   * the model), their role labels and the roles table when the scores come.
   */
  function drawMaps(source, data, r) {
    const { info } = source.opened;
    // the last tokens are the model's pieces of the sentence (its data), the model's name and type too
    const text = el('span', { dataset: { text: 'input' } }, data.tokens.slice(-3).join(' '));
    next.replaceChildren(el('p', 'note', ...messageNodes(t, 'mo.nextIntro', { text })), nextTokens(data.next, i18n));
    roles.replaceChildren(r ? rolesTable(r.scores, r.probe, i18n, data.roles)  // and the same scores on the learner's own sentence
      : el('p', { className: 'note', dataset: { role: 'roles-pending' } }, t('mo.rolesPending')));
    let hi = 0;
    for (const w of data.attentions) hi = Math.max(hi, w);
    tools.replaceChildren(legend('prob', [0, hi || 1], t('mo.weight')));
    overview.update(data, r?.scores ?? null, readout, (layer) => ctx.setState({ layer }), r?.probe ?? null);
    const model = el('span', { lang: 'en', dataset: { text: 'model' } }, source.title);
    summary.replaceChildren(...messageNodes(t, 'mo.summary', { model }, { tokens: t('mo.nTokens', { count: data.tokens.length }),
      layers: t('mo.nLayers', { count: info.nLayers }), heads: t('mo.nHeads', { count: info.nHeads }) }));
    body.hidden = false;
    // For the page benchmark (scripts/bench-pretrained-page.mjs): when a model's maps were first drawn.
    if (!performance.getEntriesByName(MAPS_MARK).length) performance.mark(MAPS_MARK);
  }

  function draw(source, data, r) {
    const { info } = source.opened;
    drawMaps(source, data, r);
    ctx.reportError('model', null);
    return { opened: true, model: info.modelType, layers: info.nLayers, heads: info.nHeads, tokens: data.tokens.length,
      next: data.next.map((n) => n.token), roles: r.scores.length, probeLength: r.probe.T };
  }

  return {
    update(next) {
      state = next;
      const source = ctx.sourceFor('model', state);
      opener.update(state);
      opener.show(ctx.modelJob(), ctx.model());
      if (source.id !== 'pretrained') {
        latest.cancel();
        shown = '';
        body.hidden = true;
        summary.textContent = ctx.modelJob() ? '' : t('mo.noModel');
        setViewState(root, ctx.modelJob() && !ctx.modelJob().error ? 'busy' : 'ready', { opened: false });
        return undefined;
      }
      const key = source.key({ ...state, layer: 0 });
      if (key === shown) return undefined;
      shown = key;
      // the sentence first (its maps are drawn at once), then the roles (cached per model): their
      // probes are asked of the worker only after the sentence's forward, so the maps never wait for them
      const work = async (isCurrent) => {
        const data = await source.all(state);
        const roleScores = rolesOf(source);
        if (isCurrent() && !rolesKnown.has(source.opened.key)) drawMaps(source, data, null);
        return [data, await roleScores];
      };
      return latest.run(work, ([data, r]) => draw(source, data, r), (e) => {
        shown = '';
        body.hidden = true;
        summary.replaceChildren(t('mo.cannot'), ' ', coreDetail(e.message, i18n));
        ctx.reportError('model', e);
      });
    },
    destroy() { unwatch(); latest.cancel(); root.replaceChildren(); },
  };
}
