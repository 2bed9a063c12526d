// registry.js — THE list of views. The full page shows them in this order; embed.html?view=<id>
// and <attention-playground view="<id>"> show one. Adding a view: one file in views/ exporting
// create<Name>View(root, ctx) -> { update(state), destroy() }, plus a lazy() factory and one line here.
//   id           URL / attribute value
//   (its heading and its intro are the catalog's `view.<id>.title` and `view.<id>.intro`, i18n/catalogs/)
//   create       the view's factory
//   ownControls  true: the view brings its own settings, so a single embed of it hides the shape form
//
// Code-splitting: the heatmap (the view course pages embed most) is in the main bundle; every other
// view is a chunk of its own, fetched when an element first shows it (lazy() below), so that
// embed.html?view=heatmap loads neither uPlot nor the labs. Chunks resolve against the bundle's own
// URL (base './' in vite.config.mjs), so any sub-path works; standalone.html inlines them all.
import { setViewState } from './kit.js';
import { EN } from './i18n/index.js';
import { createHeatmapView } from './views/heatmap.js';

/** The loads of the lazy views an element is creating in this task (one batch per mount). */
let batch = null;

/**
 * A view factory that imports its module on first use. It returns the view contract at once
 * ({ update, destroy }); the import starts at the first update (or earlier, on `factory.preload()`),
 * and the latest state is applied when the module arrives. The slot is marked busy meanwhile, so the
 * element waits for this view's first draw (view-ready) as it would for a view computing. The
 * element updates the views under its first one only once that one has drawn, so their code does
 * not compete with the first map for the CPU (docs/performance.md). Views created together (the
 * full page) are built in page order: each once its own module and those of the views above it
 * have arrived, so no section changes height above one that is already drawn. A failed import shows
 * an error state in the slot.
 * @param {() => Promise<Record<string, Function>>} load  a literal dynamic import, for the bundler
 * @param {string} name  the factory exported by the module
 */
function lazy(load, name) {
  let importing = null;
  const preload = () => (importing ??= load().catch((e) => {
    importing = null;  // a later view may try again
    throw e;
  }));
  const factory = (root, ctx) => {
    let view = null;
    let latest = null;
    let started = false;
    let gone = false;
    root.dataset.state = 'busy';
    if (!batch) {
      batch = [];
      const done = batch;
      queueMicrotask(() => { if (batch === done) batch = null; });
    }
    batch.push(preload);
    const aboveAndThis = [...batch];  // the lazy views created before this one in the same task, and it
    const start = () => {
      started = true;
      const mine = preload();
      Promise.allSettled(aboveAndThis.map((p) => p()))
        .then(() => mine)
        .then((module) => {
          if (gone) return;
          view = module[name](root, ctx);
          if (latest) view.update(latest);
        })
        .catch((e) => {
          if (gone) return;
          root.textContent = (ctx.i18n ?? EN).t('shell.viewLoadFailed', { message: e?.message ?? e });
          setViewState(root, 'error');
        });
    };
    return {
      update(state) {
        if (view) return view.update(state);
        latest = state;
        if (!started) start();
      },
      destroy() {
        gone = true;
        view?.destroy();
      },
    };
  };
  factory.preload = preload;
  return factory;
}

const createWalkthroughView = lazy(() => import('./views/walkthrough.js'), 'createWalkthroughView');
const createPytorchView = lazy(() => import('./views/pytorch.js'), 'createPytorchView');
const createHeadsTableView = lazy(() => import('./views/heads-table.js'), 'createHeadsTableView');
const createCompareView = lazy(() => import('./views/compare.js'), 'createCompareView');
const createDecodeView = lazy(() => import('./views/decode.js'), 'createDecodeView');
const createKvChartView = lazy(() => import('./views/kv-chart.js'), 'createKvChartView');
const createParamsView = lazy(() => import('./views/params.js'), 'createParamsView');
const createReadingView = lazy(() => import('./views/reading.js'), 'createReadingView');
const createCheckView = lazy(() => import('./views/check.js'), 'createCheckView');
const createConfiguratorView = lazy(() => import('./views/configurator.js'), 'createConfiguratorView');
const createModelView = lazy(() => import('./views/model.js'), 'createModelView');
const createLabHeadsView = lazy(() => import('./views/lab-heads.js'), 'createLabHeadsView');
const createLabInductionView = lazy(() => import('./views/lab-induction.js'), 'createLabInductionView');
const createLabMqaView = lazy(() => import('./views/lab-mqa.js'), 'createLabMqaView');
const createLabRankView = lazy(() => import('./views/lab-rank.js'), 'createLabRankView');

export const REGISTRY = [
  { id: 'walkthrough', create: createWalkthroughView, ownControls: false },
  { id: 'heatmap', create: createHeatmapView, ownControls: false },
  { id: 'model', create: createModelView, ownControls: false },
  { id: 'compare', create: createCompareView, ownControls: false },
  { id: 'decode', create: createDecodeView, ownControls: false },
  { id: 'pytorch', create: createPytorchView, ownControls: false },
  { id: 'heads-table', create: createHeadsTableView, ownControls: true },
  { id: 'params', create: createParamsView, ownControls: true },
  { id: 'kv-chart', create: createKvChartView, ownControls: true },
  { id: 'configurator', create: createConfiguratorView, ownControls: true },
  { id: 'lab-heads', create: createLabHeadsView, ownControls: true },
  { id: 'lab-mqa', create: createLabMqaView, ownControls: true },
  { id: 'lab-rank', create: createLabRankView, ownControls: true },
  { id: 'lab-induction', create: createLabInductionView, ownControls: true },
  { id: 'reading', create: createReadingView, ownControls: true },
  { id: 'check', create: createCheckView, ownControls: true },
];

/** id -> entry */
export const viewById = (id) => REGISTRY.find((v) => v.id === id) ?? null;
/** Every value the `view` attribute / URL key accepts: 'all' (the full page) and each id. */
export const VIEW_IDS = ['all', ...REGISTRY.map((v) => v.id)];
