// element.js — <attention-playground>: the whole playground, or one of its views, in a shadow root.
//
//   <attention-playground view="all|<a registry.js id>" config="variant=mla&dModel=32"
//                         sync-url controls="off" playground-href="/attention/"></attention-playground>
// Events (docs/embedding.md): `ready` once the core is loaded and the views are mounted, `statechange`
// with the state after every change, `view-ready` (from each view, bubbling) when a view finished drawing.
// Several elements on one page are independent: each owns its state and shadow root and shares
// only the worker that runs the core.
// The shared stylesheets, inlined into each shadow root (styles/: base, the render layer, the views,
// tables); the views that are chunks of their own bring theirs (kit.useStyles).
import base from './styles/base.css?inline';
import renderCss from './styles/render.css?inline';
import viewsCss from './styles/views.css?inline';
import tablesCss from './styles/tables.css?inline';
import { DEFAULTS, fromParams, shapeKeyOf, shapeSpec, toParams } from './state.js';
import { buildName, el } from './kit.js';
import { sharedClient } from './client.js';
import { createControlsView } from './views/controls.js';
import { REGISTRY, VIEW_IDS, viewById } from './registry.js';
import { LANGS, LANG_IDS, createI18n, hasCatalog, loadI18n, pickLang } from './i18n/index.js';
import { seededSource } from './sources/seeded.js';
import { zooSource } from './sources/zoo.js';

/** The views that draw an opened checkpoint (the others keep the lesson's seeded block). */
const MODEL_VIEWS = ['heatmap', 'walkthrough', 'decode', 'model'];
// The views that draw a zoo model when state.source is 'trained' (sources/zoo.js); the others keep the seeded block.
const ZOO_VIEWS = ['heatmap', 'compare', 'walkthrough', 'decode'];

const css = [base, renderCss, viewsCss, tablesCss].join('\n');
/** sources/trained.js, imported when a lab first hands a model to "Inspect". */
let trainedSource = null;

let uidCounter = 0;
/** The longest the other views wait for the first view's draw (ms). */
const FOLLOW_MS = 250;

export class AttentionPlayground extends HTMLElement {
  static get observedAttributes() { return ['view', 'config']; }

  constructor() {
    super();
    this.uid = `ap${++uidCounter}`;
    this.attachShadow({ mode: 'open' });
    this.i18n = createI18n('en');  // until #mount has the chosen language's
    this.views = [];
    this.errors = new Map();
    this.inspected = null;  // a trained model shown in the heatmap view (see ctx.inspectModel)
    this.trained = new Map(); // lab id -> the models it keeps ({ lab, label, key, inspect, ... }), for compare
    this.model = null;        // an opened checkpoint's source (sources/pretrained.js), for MODEL_VIEWS
    this.modelJob = null;     // the checkpoint being opened: { input, controller, promise, progress, error }
    this.state = { ...DEFAULTS };
    this.pending = false;
    this.modelWatchers = new Set();
    this.mountCount = 0;     // #mount calls: a mount that waited for a catalog gives way to a later one
  }

  connectedCallback() { this.#mount(); }
  disconnectedCallback() { this.#unmount(); }
  attributeChangedCallback() { if (this.isConnected && this.mounted) this.#mount(); }

  /** The URL's parameters when the element follows the address (sync-url), else none. */
  #urlParams() {
    return this.hasAttribute('sync-url') ? new URLSearchParams(location.search) : new URLSearchParams();
  }

  #readState() {
    const params = new URLSearchParams(this.getAttribute('config') || '');
    for (const [k, v] of this.#urlParams()) params.set(k, v);
    const s = fromParams(params, { views: VIEW_IDS });
    if (this.hasAttribute('view') && VIEW_IDS.includes(this.getAttribute('view'))) s.view = this.getAttribute('view');
    if (s.view === 'all' && VIEW_IDS.includes(this.getAttribute('default-view'))) s.view = this.getAttribute('default-view');
    return s;
  }

  /** A view id the element was asked for that does not exist (attribute or URL), or null. */
  #unknownView() {
    const asked = this.getAttribute('view') ?? this.#urlParams().get('view');
    return asked != null && !VIEW_IDS.includes(asked) ? asked : null;
  }

  /** `controls="off"` as an attribute, or `controls=off` in the address of a synced element (embed.html). */
  #controlsOff() {
    return (this.getAttribute('controls') ?? this.#urlParams().get('controls')) === 'off';
  }

  /**
   * Builds the element for its attributes and the URL, or for `keep` (a state, when only the language
   * changed: the views are built again in the new language, nothing else changes).
   */
  async #mount(keep = null) {
    this.#unmount();
    this.mounted = true;
    const mount = ++this.mountCount;
    const asked = keep?.lang ?? this.#readState().lang;
    const lang = pickLang(asked, globalThis.navigator?.languages ?? []);
    // English is in the bundle; another language's catalog is fetched first (English if it cannot be).
    const i18n = hasCatalog(lang) ? createI18n(lang) : await loadI18n(lang).catch(() => createI18n('en'));
    if (!this.mounted || mount !== this.mountCount) return;  // disconnected, or mounted again meanwhile
    this.i18n = i18n;
    this.#setLangAttributes(i18n);
    if (this.sourcesLang !== i18n.lang) {  // the sources speak the language they were made in: make them again
      this.seeded = this.inspectedSource = null;  // the zoo's source reads the language at each use (#liveCtx): it keeps its opened models
      this.sourcesLang = i18n.lang;
    }
    const unknown = this.#unknownView();
    if (unknown !== null) {
      this.#showUnknownView(unknown);
      return;
    }
    this.state = keep ?? this.#readState();
    const view = this.state.view;
    const single = view !== 'all';
    const showControls = !single || (!this.#controlsOff() && !viewById(view).ownControls);
    const sections = single ? [view] : REGISTRY.map((v) => v.id);
    const simdParam = new URLSearchParams(location.search).get('simd');
    this.client = sharedClient(simdParam === '0' ? false : 'auto');
    // Asked before anything else: the worker (about 100 ms to start in a cold browser) and then the
    // first view's code (views are created once the core has loaded) download while this thread
    // builds the controls. Only the first: the other views' code would take the CPU the first map
    // needs (docs/performance.md).
    const core = Promise.all([this.client.call('info'), this.client.call('presets')]);
    viewById(sections[0]).create.preload?.();

    const { t } = i18n;
    const section = (id) => el('section', { className: 'panel', dataset: { section: id }, 'aria-labelledby': `${this.uid}-${id}`, id: `${this.uid}-section-${id}` },
      el('h2', { id: `${this.uid}-${id}`, tabindex: '-1', className: single ? 'sr-live' : null }, t(`view.${id}.title`)),
      single || !i18n.has(`view.${id}.intro`) ? null : el('p', 'intro', t(`view.${id}.intro`)),
      el('div', { className: 'view', dataset: { slot: id } }));
    // The page's main landmark where the element owns the page (sync-url); in a course page, the page's own.
    this.shadowRoot.replaceChildren(el('style', null, css), el('div', { className: `app ${single ? 'single' : 'full'}`, dataset: { view } },
      single ? null : this.#header(sections),
      el(this.hasAttribute('sync-url') ? 'main' : 'div', null,
        single && this.hasAttribute('sync-url') ? el('h1', 'sr-live', t('shell.title')) : null,  // an embed's page: its headings for a screen reader
        showControls ? el('section', { className: 'panel controls-panel', 'aria-label': t('shell.controls'), dataset: { slot: 'controls' } }) : null,
        ...sections.map(section),
        single ? el('p', 'foot', el('span', { dataset: { role: 'open-link' } }), el('span', { dataset: { role: 'build' } })) : null)));
    this.shadowRoot.querySelector('[data-action="lang"]')?.addEventListener('change', (e) => this.setLang(e.target.value));
    this.#updatePlaygroundLink();

    const ctx = {
      client: this.client,
      i18n,
      setState: (patch) => this.setState(patch),
      reportError: (source, error) => this.#reportError(source, error),
      theme: () => this.#theme(),
      // "Inspect this model": a lab view hands the heatmap view a trained model ({ key, tokens, labels,
      // title }) or null; only where this element shows the heatmap view.
      inspected: () => this.inspected,
      // The source a view draws its maps from (web/ARCHITECTURE.md, "Sources"): the model a lab
      // handed to "Inspect" in the heatmap view, the seeded block everywhere else.
      sourceFor: (view, state = this.state) => {
        if (MODEL_VIEWS.includes(view) && this.model) return this.model;
        // While a checkpoint opens, its views wait; a refusal is shown by the model view where there is one.
        const job = this.modelJob;
        if (MODEL_VIEWS.includes(view) && job && (!job.error || !this.viewIds?.includes('model'))) return this.hostModule.openingSource(job);
        if (view === 'heatmap' && this.inspected) {
          if (this.inspectedSource?.model !== this.inspected) {
            this.inspectedSource = { model: this.inspected, source: trainedSource(ctx, this.inspected) };
          }
          return this.inspectedSource.source;
        }
        if (ZOO_VIEWS.includes(view) && state.source === 'trained') return (this.zoo ??= zooSource(this.#liveCtx()));
        return (this.seeded ??= seededSource(ctx));
      },
      canInspect: () => sections.includes('heatmap'),
      inspectModel: async (model) => {
        if (model) trainedSource ??= (await import('./sources/trained.js')).trainedSource;
        this.inspected = model;
        this.#render();
        if (model) this.shadowRoot.querySelector('[data-section="heatmap"]')?.scrollIntoView({ behavior: 'smooth' });
      },
      openPlayground: (patch, options) => this.#openPlayground(patch, options),
      // "Open a model" (views/model.js): a checkpoint from files ({ files }) or a served folder ({ url }).
      // A lab's "open in the model view" ({ files, name, text }) also brings the model view into sight.
      openModel: (input, { show = false } = {}) => {
        if (show) this.shadowRoot.querySelector('[data-section="model"]')?.scrollIntoView({ behavior: 'smooth' });
        return this.#host().then((h) => h.openModel(this, input));
      },
      canOpenModel: () => sections.includes('model'),
      closeModel: () => this.#host().then((h) => h.closeModel(this)),
      model: () => this.model,
      modelJob: () => this.modelJob,
      watchModel: (fn) => { this.modelWatchers.add(fn); return () => this.modelWatchers.delete(fn); },
      // The labs' trained models, for the compare view's comparison that measures quality.
      trained: () => [...this.trained.values()].flat(),
      noteTrained: (lab, models) => {
        // A lab reports its models whenever its panel refreshes: re-render only when they changed
        // (a re-render redraws the first view, e.g. the walkthrough's plots under the pointer).
        const labTitle = viewById(lab) ? t(`view.${lab}.title`).split(' · ')[0] : lab;  // 'Lab 2'
        const named = models.map((m) => ({ ...m, labTitle }));
        const changed = JSON.stringify(named) !== JSON.stringify(this.trained.get(lab) ?? []);
        this.trained.set(lab, named);
        if (changed) this.#render();
      },
      info: null,
      presets: [],
    };
    this.ctx = ctx;
    if (showControls) {
      this.controls = createControlsView(this.#slot('controls'), ctx, { uid: this.uid });
      this.controls.update(this.state);
    }
    this.#wireActions();
    try {
      [ctx.info, ctx.presets] = await core;
    } catch (e) {
      this.#setBuild(t('shell.coreFailed', { message: e.message }));
      return;
    }
    if (!this.mounted) return;
    this.#setBuild(buildName(ctx.info.build, i18n));
    this.viewIds = sections;
    // ?model=: the opening starts before the views are made, so the map views wait for the model.
    if (this.state.model && this.model?.opened.url !== this.state.model) (await this.#host()).openModel(this, { url: this.state.model, hub: this.state.hub });
    if (!this.mounted) return;
    this.views = sections.map((s) => viewById(s).create(this.#slot(s), ctx));
    this.#render();
    // For course pages: the core is loaded and every view is mounted (each then signals 'view-ready').
    this.dispatchEvent(new CustomEvent('ready', { detail: { view, views: sections, info: { ...ctx.info } } }));
  }

  #unmount() {
    clearTimeout(this.followTimer);
    this.followSlot?.removeEventListener('view-ready', this.follow);
    this.followSlot = null;
    for (const v of this.views) v.destroy();
    this.views = [];
    this.controls?.destroy();
    this.controls = null;
    this.errors.clear();
    this.mounted = false;
  }

  /** `lang` and `dir` on the host (and on <html> of a page the element owns: sync-url). */
  #setLangAttributes({ lang, dir }) {
    this.setAttribute('lang', lang);
    this.setAttribute('dir', dir);
    if (this.hasAttribute('sync-url')) {
      document.documentElement.lang = lang;
      document.documentElement.dir = dir;
    }
  }

  /**
   * Speaks `lang` (an id of i18n LANGS, or '' for the browser's language): the views are built again
   * in it, the state and the URL keep everything else (no reload).
   */
  setLang(lang) {
    const state = { ...this.state, lang: LANGS[lang] ? lang : '' };
    this.setState({ lang: state.lang });
    this.#mount(state);
  }

  /** The full page's header: title, the build, the language, Copy link / embed, and the contents in lesson order. */
  #header(sections) {
    const { t, lang } = this.i18n;
    const go = (id) => (e) => {
      e.preventDefault();
      const target = this.shadowRoot.querySelector(`[data-section="${id}"]`);
      if (!target) return;
      // Sections above it are laid out only as they come near (content-visibility): their real heights
      // move the target, so scroll again once they have settled.
      target.scrollIntoView({ block: 'start' });
      let tries = 0;
      const settle = () => {
        const top = target.getBoundingClientRect().top;
        if (Math.abs(top) > 2 && ++tries < 10) {
          target.scrollIntoView({ block: 'start' });
          requestAnimationFrame(settle);
        }
      };
      requestAnimationFrame(settle);
      target.querySelector('h2')?.focus({ preventScroll: true });
    };
    return el('header', 'app-head',
      el('div', null, el('h1', null, t('shell.title')),
        el('p', 'tagline', t('shell.tagline'))),
      el('div', 'app-actions',
        el('span', { className: 'badge', dataset: { role: 'build' } }, t('shell.loadingCore')),
        el('label', { className: 'lang-picker' }, t('shell.language'), ' ',
          el('select', { dataset: { action: 'lang' } }, ...LANG_IDS.map((id) => el('option', { value: id, lang: id, selected: id === lang, dataset: { text: 'language-name' } }, LANGS[id].name)))),
        el('button', { type: 'button', dataset: { action: 'copy-link' } }, t('shell.copyLink')),
        el('button', { type: 'button', dataset: { action: 'copy-embed' } }, t('shell.copyEmbed')),
        el('span', { className: 'copied', role: 'status', dataset: { role: 'copied' } })),
      el('nav', { className: 'contents', 'aria-label': t('shell.contents'), dataset: { role: 'contents' } },
        el('ol', null, ...sections.map((id) => el('li', null, el('a', { href: `#${this.uid}-section-${id}`, dataset: { go: id }, onclick: go(id) },
          t(`view.${id}.short`)))))));
  }

  /** The full playground's URL for a state: on our own embed.html (sync-url) or where the page says it is. */
  #playgroundUrl(state) {
    const href = this.getAttribute('playground-href') ?? (this.hasAttribute('sync-url') ? './' : null);
    return href === null ? null : `${href}?${toParams({ ...state, view: 'all' })}`;
  }

  /** "Open in the playground": the link under a single view, for the state as it is now. */
  #updatePlaygroundLink() {
    const box = this.shadowRoot.querySelector('[data-role="open-link"]');
    const url = box && this.#playgroundUrl(this.state);
    if (!box) return;
    if (url === null) {
      box.replaceChildren();
      return;
    }
    let a = box.querySelector('a');
    if (!a) {
      a = el('a', { target: '_blank', rel: 'noopener', dataset: { action: 'open-playground' } }, this.i18n.t('shell.openPlayground'));
      box.replaceChildren(a, ' · ');
    }
    a.href = url;
  }

  /** A view id that does not exist: say so, and list the ones that do (no 10,000 px full page). */
  #showUnknownView(asked) {
    this.shadowRoot.replaceChildren(el('style', null, css), el('div', { className: 'app single', dataset: { view: 'unknown' } },
      el('p', { className: 'field-error', role: 'alert', dataset: { role: 'unknown-view' } },
        this.i18n.t('shell.unknownView', { asked, views: VIEW_IDS.join(', ') }))));
    this.dispatchEvent(new CustomEvent('ready', { detail: { view: null, views: [], error: `unknown view "${asked}"` } }));
  }

  /**
   * Shows a shape in the attention maps: in the full playground, applies it and scrolls to the maps,
   * with `note` (what was scaled to fit, say) at the top of their section, where the learner lands;
   * in a single view, opens the full playground with it in a new tab.
   * @param {object} patch
   * @param {{ note?: string }} [options]
   * @returns {'applied' | 'opened' | null} null: a single view that does not know where the playground is
   */
  #openPlayground(patch, { note = '' } = {}) {
    if (this.state.view === 'all') {
      this.setState(patch);
      const section = this.shadowRoot.querySelector('[data-section="heatmap"]');
      if (section) {
        let box = section.querySelector(':scope > .landing-note');
        if (!box) {
          box = el('p', { className: 'note landing-note', role: 'status', dataset: { role: 'landing-note' } });
          section.querySelector('[data-slot]').before(box);
        }
        box.textContent = note;
        box.hidden = !note;
        section.scrollIntoView({ behavior: 'smooth', block: 'start' });
      }
      return 'applied';
    }
    const url = this.#playgroundUrl({ ...this.state, ...patch });
    if (url === null) return null;
    window.open(url, '_blank', 'noopener');
    return 'opened';
  }

  /**
   * The element's client and language as they are at each use, and its re-render: for a source that
   * outlives the views (the zoo's, whose opened checkpoints a change of language keeps).
   */
  #liveCtx() {
    const host = this;
    return { get client() { return host.client; }, get i18n() { return host.i18n; }, rerender: () => host.rerender() };
  }

  /** The code that opens and closes checkpoints (model-host.js), imported on first use. */
  #host() { return import('./model-host.js').then((m) => (this.hostModule = m)); }

  /** Re-renders now (model-host.js, when a checkpoint starts opening or cannot be opened). */
  rerender() { if (this.mounted) this.#render(); }

  #slot(name) { return this.shadowRoot.querySelector(`[data-slot="${name}"]`); }

  #setBuild(text) {
    for (const el of this.shadowRoot.querySelectorAll('[data-role="build"]')) el.textContent = text;
  }

  /** Merges a patch into the state, re-renders (once per frame) and updates the URL (sync-url). */
  setState(patch) {
    this.state = { ...this.state, ...patch };
    if (('text' in patch || 'dModel' in patch) && !('sel' in patch)) this.state.sel = '';
    if (this.hasAttribute('sync-url')) {
      const params = toParams(this.state);
      if (this.getAttribute('view')) params.delete('view');
      const query = params.toString();
      try {
        history.replaceState(null, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`);
      } catch {
        /* some file:// contexts refuse URL changes: the state still applies */
      }
    }
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.#render();
    });
  }

  /**
   * Updates the form and the first view at once; the other views once the first has drawn (its
   * view-ready) or after FOLLOW_MS, so their work and drawing never delay the maps a learner is
   * looking at (npm run bench:page, docs/performance.md). Later views get the latest state.
   */
  #render() {
    // An opened checkpoint's (or the zoo model's) tokenizer splits the sentence first, then renders again.
    const zoo = this.state.source === 'trained' && this.viewIds?.some((v) => ZOO_VIEWS.includes(v)) ? (this.zoo ??= zooSource(this.#liveCtx())) : null;
    if (this.model?.waits?.(this.state) || zoo?.waits?.(this.state)) return;
    const opened = this.model?.opened;
    this.controls?.showModel(opened ? { name: this.model.title, layers: opened.info.nLayers, shape: opened.shape, maxTokens: this.model.maxTokens } : zoo?.shown(this.state) ?? null,
      (this.viewIds ?? []).every((v) => (opened ? MODEL_VIEWS : ZOO_VIEWS).includes(v)));
    this.controls?.update(this.state, this.shape?.key === this.#shapeKey() ? this.shape.value : null);
    this.#resolveShape();
    this.#updatePlaygroundLink();
    const [first, ...rest] = this.views;
    clearTimeout(this.followTimer);
    this.followSlot?.removeEventListener('view-ready', this.follow);
    if (first) {
      const slot = this.#slot(this.viewIds[0]);
      const before = slot.dataset.draws;
      first.update(this.state);
      if (rest.length) {
        const updateRest = () => { if (this.mounted) for (const v of rest) v.update(this.state); };
        this.follow = (e) => {
          clearTimeout(this.followTimer);
          slot.removeEventListener('view-ready', this.follow);
          this.followSlot = null;
          // After the maps are painted: the next frame's callbacks run before its paint, a task after it.
          if (e) requestAnimationFrame(() => setTimeout(updateRest, 0));
          else updateRest();
        };
        if (slot.dataset.state === 'busy' || slot.dataset.draws !== before) {
          this.followSlot = slot;
          slot.addEventListener('view-ready', this.follow);
          this.followTimer = setTimeout(() => this.follow(null), FOLLOW_MS);
        } else {
          this.follow(null);  // the first view had nothing to compute
        }
      }
    }
    this.dispatchEvent(new CustomEvent('statechange', { detail: { ...this.state } }));
  }

  #shapeKey() { return shapeKeyOf(this.state); }

  /** The core's resolved shape of the state, for the form (the K/V heads a variant implies). */
  #resolveShape() {
    const key = this.#shapeKey();
    if (!this.controls || this.shape?.key === key || this.shapePending === key) return;
    this.shapePending = key;
    this.client.call('resolveShape', shapeSpec(this.state)).then((value) => ({ value }), () => ({ value: null })).then(({ value }) => {
      if (this.shapePending !== key) return;
      this.shapePending = null;
      this.shape = { key, value };
      if (this.#shapeKey() === key) this.controls?.update(this.state, value);
    });
  }

  #reportError(source, error) {
    if (error) this.errors.set(source, error);
    else this.errors.delete(source);
    this.controls?.showErrors([...this.errors.values()]);
  }

  #theme() {
    const cs = getComputedStyle(this.shadowRoot.querySelector('.app'));
    const v = (n) => cs.getPropertyValue(n).trim();
    return { fg: v('--fg'), bg: v('--bg'), muted: v('--muted'), accent: v('--accent'), grid: v('--grid'),
      border: v('--border'), series: [1, 2, 3, 4, 5, 6].map((i) => v(`--series-${i}`)) };
  }

  #wireActions() {
    const root = this.shadowRoot;
    const { t } = this.i18n;
    const say = (text) => { const el = root.querySelector('[data-role="copied"]'); if (el) el.textContent = text; };
    const copy = async (text, what) => {
      try {
        await navigator.clipboard.writeText(text);
        say(t('shell.copied', { what }));
      } catch {
        say(t('shell.copyByHand', { what, text }));  // no clipboard permission: show it to copy by hand
      }
      this.lastCopied = text;
    };
    root.querySelector('[data-action="copy-link"]')?.addEventListener('click', () => copy(location.href, t('shell.link')));
    root.querySelector('[data-action="copy-embed"]')?.addEventListener('click', () => {
      const params = toParams({ ...this.state, view: 'heatmap' });
      const src = new URL(`embed.html?${params}`, location.href).href;
      import('./embed-code.js').then((m) => copy(m.embedCode(src, t('shell.title')), t('shell.embedCode')));  // iframe + its resizer
    });
  }
}

if (!customElements.get('attention-playground')) customElements.define('attention-playground', AttentionPlayground);
