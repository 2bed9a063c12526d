// registry.js — THE list of views. The full page shows them in this order; embed.html?view=<id>
// and <attention-playground view="<id>"> show one. Adding a view: one file in views/ exporting
// create<Name>View(root, ctx) -> { update(state), destroy() }, plus a lazy() factory and one line here.
//   id           URL / attribute value
//   title        heading on the full page (plain text)
//   intro        one sentence under the heading on the full page (plain text, or '')
//   create       the view's factory
//   ownControls  true: the view brings its own settings, so a single embed of it hides the shape form
//
// Code-splitting: the heatmap (the view course pages embed most) is in the main bundle; every other
// view is a chunk of its own, fetched when an element first shows it (lazy() below), so that
// embed.html?view=heatmap loads neither uPlot nor the labs. Chunks resolve against the bundle's own
// URL (base './' in vite.config.mjs), so any sub-path works; standalone.html inlines them all.
import { setViewState } from './kit.js';
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
          root.textContent = `This view could not be loaded (${e?.message ?? e}): reload the page to try again.`;
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
const createConfiguratorView = lazy(() => import('./views/configurator.js'), 'createConfiguratorView');
const createModelView = lazy(() => import('./views/model.js'), 'createModelView');
const createLabHeadsView = lazy(() => import('./views/lab-heads.js'), 'createLabHeadsView');
const createLabInductionView = lazy(() => import('./views/lab-induction.js'), 'createLabInductionView');
const createLabMqaView = lazy(() => import('./views/lab-mqa.js'), 'createLabMqaView');
const createLabRankView = lazy(() => import('./views/lab-rank.js'), 'createLabRankView');

export const REGISTRY = [
  { id: 'walkthrough', title: 'The mechanism, step by step: split → attend → concat → W_o', create: createWalkthroughView, ownControls: false,
    intro: 'One sentence through every stage of the lesson, drawn from the core\'s own tensors. Step with the buttons or the arrow keys; hover a cell to see what it was made from.' },
  { id: 'heatmap', title: 'Attention maps, one per head', create: createHeatmapView, ownControls: false,
    intro: 'softmax(Q_h · K_gᵀ / √d_head) for every query head h; query heads that share a K/V head g are boxed together.' },
  { id: 'model', title: 'A real model: open a Hugging Face checkpoint', create: createModelView, ownControls: false,
    intro: '' },
  { id: 'compare', title: 'Variants side by side', create: createCompareView, ownControls: false,
    intro: 'The same sentence, seed and query/output projections through different variants.' },
  { id: 'decode', title: 'Decoding with a KV cache', create: createDecodeView, ownControls: false, intro: '' },
  { id: 'pytorch', title: 'The same computation in PyTorch', create: createPytorchView, ownControls: false,
    intro: 'The code you would write next, for these settings, and a file with this page\'s input, weights and output to check it against.' },
  { id: 'heads-table', title: 'How many heads? The rule of thumb and real models', create: createHeadsTableView, ownControls: true,
    intro: 'The lesson\'s table next to real models, with the KV cache each one pays per token.' },
  { id: 'params', title: 'Parameters and KV cache per token', create: createParamsView, ownControls: true, intro: '' },
  { id: 'kv-chart', title: 'KV-cache size against context length', create: createKvChartView, ownControls: true, intro: '' },
  { id: 'configurator', title: 'Configurator: a new model\'s attention', create: createConfiguratorView, ownControls: true,
    intro: 'From a parameter budget, a context length and a device: the variant, the head counts and the KV cache they cost.' },
  { id: 'lab-heads', title: 'Lab 1 · Do more heads help? (heads sweep)', create: createLabHeadsView, ownControls: true,
    intro: 'One-layer models at dModel 64 with 1, 2, 4, 8 and 16 heads, trained on the copy task in your browser.' },
  { id: 'lab-mqa', title: 'Lab 2 · What does MQA save, and what does it cost?', create: createLabMqaView, ownControls: true,
    intro: 'MHA, GQA and MQA at the same dModel: parameters, KV cache at N = 2048, and trained quality on the same task.' },
  { id: 'lab-rank', title: 'Lab 3 · How small can the MLA latent be?', create: createLabRankView, ownControls: true,
    intro: 'Character-level models of Shakespeare: MHA against MLA at several latent ranks, validation bits per character against KV cache.' },
  { id: 'lab-induction', title: 'Lab 4 · Watch induction heads form', create: createLabInductionView, ownControls: true,
    intro: 'A two-layer attention-only model on sequences with repeated segments (A B … A → B): loss, accuracy and every head\'s role, live.' },
];

/** id -> entry */
export const viewById = (id) => REGISTRY.find((v) => v.id === id) ?? null;
/** Every value the `view` attribute / URL key accepts: 'all' (the full page) and each id. */
export const VIEW_IDS = ['all', ...REGISTRY.map((v) => v.id)];
