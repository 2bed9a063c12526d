// decode-bandwidth.js — the decode view's "why GQA exists" measurement, run on the learner's device
// when asked: one generated token's time against the context length for MHA, GQA, MQA and MLA at one
// real layer shape (Llama 3 8B's), beside the bytes that step reads (every weight once, plus the
// cache) and the time those bytes take at the copy bandwidth measured in the same run (the floor).
// The step without a KV cache (every earlier key and value recomputed) is timed at one context, so
// the cache's purpose is a number too. The worker's decodeBandwidth does the timing
// (worker-methods.js); this part draws it (render/line-chart.js) and says where it is not settled.
import { coreDetail, el, variantName } from '../kit.js';
import { scrollRegion } from '../render/scroll-region.js';
import '../i18n/catalogs/en/decode.js';  // the English words it speaks

/** Llama 3 8B's attention (one layer), and MLA at DeepSeek-V2's latent and RoPE sizes on it. */
export const BANDWIDTH_SHAPE = Object.freeze({ dModel: 4096, nHeads: 32 });
export const BANDWIDTH_VARIANTS = Object.freeze([
  { variant: 'mha', rope: true },
  { variant: 'gqa', nKvHeads: 8, rope: true },
  { variant: 'mqa', rope: true },
  { variant: 'mla', latentRank: 512, ropeDim: 64 },
]);
export const BANDWIDTH_CONTEXTS = Object.freeze([0, 1024, 2048, 4096, 6144, 8192]);
/** A spread (max - min over the rounds) above this share of the median: "not settled". */
export const UNSETTLED_SPREAD = 0.25;

/** Median, min and max of a list of times; settled when the range is within UNSETTLED_SPREAD of the median. */
export function summarise(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  const min = s[0], max = s[s.length - 1];
  return { median, min, max, settled: s.length >= 2 && max - min <= UNSETTLED_SPREAD * median };
}

/**
 * The measurement's numbers, per variant and context: { variant, context, bytes, floorMs, ...summarise(ms) },
 * from the worker's result { bandwidth: [B/s...], rows: [{ variant, context, weightBytes, cacheBytes, ms: [] }] }.
 * The floor uses the best copy bandwidth of the run.
 */
export function bandwidthTable(result) {
  const bw = Math.max(...result.bandwidth);
  return result.rows.map((r) => {
    const bytes = r.weightBytes + r.cacheBytes;
    return { variant: r.variant, context: r.context, bytes, floorMs: (bytes / bw) * 1e3, ...summarise(r.ms) };
  });
}

export function createDecodeBandwidth(root, ctx) {
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const button = el('button', { type: 'button', className: 'dec-button', dataset: { action: 'bandwidth' } }, t('bw.measure'));
  const stop = el('button', { type: 'button', className: 'dec-button', dataset: { action: 'bandwidth-stop' }, hidden: true }, t('bw.stop'));
  const status = el('p', { className: 'note', role: 'status' }, t('bw.cost'));
  const chartBox = el('div', { className: 'dec-bandwidth-chart', hidden: true });
  const table = el('div', { className: 'dec-bandwidth-table', hidden: true });
  const box = el('section', { className: 'dec-bandwidth', dataset: { state: 'idle' } },
    el('h3', 'dec-title', t('bw.title')),
    el('p', null, t('bw.why')),
    el('div', 'dec-controls', button, stop), status, chartBox, table);
  root.append(box);

  let chart = null, controller = null;
  const setState = (state) => { box.dataset.state = state; };

  async function measure() {
    controller = new AbortController();
    button.disabled = true;
    stop.hidden = false;
    setState('busy');
    try {
      const result = await ctx.client.run('decodeBandwidth', [{
        shape: BANDWIDTH_SHAPE, variants: BANDWIDTH_VARIANTS, contexts: BANDWIDTH_CONTEXTS,
      }], {
        signal: controller.signal,
        onProgress: (p) => {
          status.textContent = t('bw.progress', { variant: variantName(p.variant), context: fmt.tokens(p.context), done: p.done, total: p.total });
        },
      });
      // uPlot comes with the chart, on the first measurement: the decode view's first load does not carry it
      const { createLineChart } = await import('../render/line-chart.js');
      draw(result, createLineChart);
      setState('ready');
    } catch (e) {
      if (controller.signal.aborted) status.textContent = t('bw.stopped');
      else status.replaceChildren(t('bw.failed'), ' ', coreDetail(e?.message ?? String(e), i18n));
      setState(controller.signal.aborted ? 'idle' : 'error');
    } finally {
      button.disabled = false;
      stop.hidden = true;
      controller = null;
    }
  }
  button.addEventListener('click', measure);
  stop.addEventListener('click', () => controller?.abort());

  function draw(result, createLineChart) {
    const rows = bandwidthTable(result);
    const variants = [...new Set(rows.map((r) => r.variant))];
    const contexts = [...new Set(rows.map((r) => r.context))].sort((a, b) => a - b);
    const at = (v, c) => rows.find((r) => r.variant === v && r.context === c);
    // two series per variant, measured then floor: series i is variant i >> 1, a floor when i is odd
    const labels = variants.flatMap((v) => [t('bw.measured', { variant: variantName(v) }), t('bw.floor', { variant: variantName(v) })]);
    const ys = variants.flatMap((v) => [contexts.map((c) => at(v, c).median), contexts.map((c) => at(v, c).floorMs)]);
    chartBox.hidden = false;
    chart ??= createLineChart(chartBox, { yLabel: t('bw.yLabel'), xLabel: t('bw.xLabel'), height: 280,
      styleOf: (label, i) => ({ colour: i >> 1, ...(i % 2 ? { dash: [6, 4] } : { points: 'also' }) }) });
    chart.setData(labels, contexts, ys);

    const last = contexts[contexts.length - 1];
    const bw = Math.max(...result.bandwidth);
    const uncached = new Map(result.uncached.map((u) => [u.variant, u]));
    const head = [t('bw.col.variant'), t('bw.col.bytes', { context: fmt.tokens(last) }), t('bw.col.floor'), t('bw.col.measured'), t('bw.col.ratio'),
      t('bw.col.uncached', { context: fmt.tokens(result.uncached[0]?.context ?? 0) })];
    const body = variants.map((v) => {
      const r = at(v, last), u = uncached.get(v), cachedThere = u ? at(v, u.context) : null;
      const range = `${r.median.toFixed(2)} ms (${r.min.toFixed(2)}-${r.max.toFixed(2)})`;
      return el('tr', null, el('th', { scope: 'row' }, variantName(v)), el('td', null, fmt.binary(r.bytes)), el('td', null, `${r.floorMs.toFixed(2)} ms`),
        el('td', null, r.settled ? range : `${range}, ${t('bw.notSettled')}`),
        el('td', null, `${(r.median / r.floorMs).toFixed(2)}×`),
        el('td', null, !u ? '—' : cachedThere ? t('bw.uncachedTimes', { ms: Math.round(u.ms), times: Math.round(u.ms / cachedThere.median) })
          : `${fmt.int(Math.round(u.ms))} ms`));
    });
    table.hidden = false;
    table.replaceChildren(scrollRegion(t('bw.region'), el('table', 'dec-bandwidth-results',
      el('caption', null, t('bw.caption', { context: fmt.tokens(last) })),
      el('thead', null, el('tr', null, ...head.map((h) => el('th', { scope: 'col' }, h)))), el('tbody', null, ...body)), '', i18n));
    const unsettled = rows.filter((r) => !r.settled).length;
    const spread = UNSETTLED_SPREAD * 100;
    const gbps = (b) => (b / 1e9).toFixed(1);
    status.textContent = [t('bw.summary', { bandwidth: gbps(bw), before: gbps(result.bandwidth[0]), after: gbps(result.bandwidth.at(-1)),
      rounds: result.rounds, build: result.build }),
    unsettled ? t('bw.unsettled', { count: unsettled, total: rows.length, spread }) : t('bw.settled', { spread })].join(' ');
    box.result = { rows, bandwidth: result.bandwidth, uncached: result.uncached, build: result.build };
  }

  return {
    destroy() {
      controller?.abort();
      chart?.destroy();
      box.remove();
    },
  };
}
