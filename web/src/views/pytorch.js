// pytorch.js — the PyTorch twin: the code a learner writes next for the current settings (MHA through
// nn.MultiheadAttention, GQA/MQA through repeat_interleave or scaled_dot_product_attention(enable_gqa=True),
// MLA written out), a "Copy" button, and a "Download" button for one .safetensors file with the input,
// the weights and this page's own output. Run, the code prints `max abs diff vs the page: <number>`.
// The code and the file come from lesson/pytorch-twin.js; the numbers from the view's source's stages
// (the seeded source's pass in the worker: its input x, the weights it used and the resolved shape;
// the core checks the shape before anything is embedded).
import lessonCss from '../styles/lesson.css?inline';
import { createLatest, downloadBlob, el, setViewState, showCoreError, variantLabel, useStyles } from '../kit.js';
import { TWIN_FILE, pytorchCode, twinFile } from '../lesson/pytorch-twin.js';
import '../i18n/catalogs/en/pytorch.js';  // the English words it speaks

export function createPytorchView(root, ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  useStyles(root, 'lesson', lessonCss);
  const latest = createLatest(root);
  let last = null;  // { code, bytes, shape }

  const summary = el('p', { className: 'note', dataset: { role: 'summary' } });
  const copy = el('button', { type: 'button', dataset: { action: 'copy-code' }, disabled: true }, t('pytorch.copy'));
  const download = el('button', { type: 'button', className: 'primary', dataset: { action: 'download' }, disabled: true },
    t('pytorch.download', { file: TWIN_FILE }));
  const status = el('span', { className: 'note', dataset: { role: 'status' }, 'aria-live': 'polite' });
  // The code is code: Python with its English comments, in every language of the page.
  const code = el('code', { dataset: { role: 'code', text: 'code' }, lang: 'en' });
  const pre = el('pre', { className: 'code-block', tabindex: '0', 'aria-label': t('pytorch.codeLabel') }, code);
  const how = el('p', { className: 'note' }, t('pytorch.how'));
  // While the maps draw another model (a bundled trained one, an opened checkpoint): whose code this is.
  const whose = el('p', { className: 'landing-note', role: 'status', dataset: { role: 'twin-whose' }, hidden: true });
  root.replaceChildren(whose, summary, el('div', 'wt-buttons', download, copy, status), how, pre);

  copy.addEventListener('click', async () => {
    if (!last) return;
    try {
      await navigator.clipboard.writeText(last.code);
      status.textContent = t('pytorch.copied');
    } catch {
      const range = document.createRange();   // no clipboard permission: select it for Ctrl+C
      range.selectNodeContents(code);
      const sel = root.getRootNode().getSelection?.() ?? window.getSelection();
      sel?.removeAllRanges();
      sel?.addRange(range);
      status.textContent = t('pytorch.selected');
    }
  });
  download.addEventListener('click', () => {
    if (!last) return;
    downloadBlob(new Blob([last.bytes], { type: 'application/octet-stream' }), TWIN_FILE, root);
    status.textContent = t('pytorch.downloaded', { file: TWIN_FILE, count: last.bytes.length });
  });

  return {
    update(state) {
      const source = ctx.sourceFor('pytorch', state);
      const drawn = ctx.model?.() ? ctx.model().title : state.source === 'trained' ? t('pytorch.zooModel', { variant: variantLabel(state.variant, i18n) }) : '';
      whose.hidden = !drawn;
      if (drawn) {
        const [before, after] = t('pytorch.notDrawn', { model: '\u0000' }).split('\u0000');
        whose.replaceChildren(before, el('span', { dataset: { text: 'model' } }, drawn), after);
      }
      const tokens = source.tokens(state);
      if (!source.stages) {
        latest.cancel();
        summary.replaceChildren(t('pytorch.noStages'), ' ', el('span', { lang: 'en', dataset: { text: 'source' } }, source.title));
        setViewState(root, 'ready', { code: '' });
        return undefined;
      }
      if (tokens.length === 0) {
        latest.cancel();
        summary.textContent = t('pytorch.typeSentence');
        setViewState(root, 'ready', { code: '' });
        return undefined;
      }
      const cut = source.note(state);
      return latest.run(
        () => source.stages(state),
        (r) => {
          ctx.reportError('pytorch', null);
          const text = tokens.join(' ');
          last = {
            code: pytorchCode(r.shape),
            bytes: twinFile(r.shape, { x: r.x, parameters: r.parameters, output: r.output, attention: r.intermediates.attention.data },
              { text }),
            shape: r.shape,
          };
          code.textContent = last.code;
          copy.disabled = download.disabled = false;
          status.textContent = '';
          // The learner's sentence is theirs, and the source's note on a cut sentence is the source's words.
          const [before, after] = t('pytorch.summary', { variant: variantLabel(r.shape.variant, i18n), text: '\u0000' }).split('\u0000');
          summary.replaceChildren(before, el('span', { dataset: { text: 'input' } }, text), after);
          if (cut) summary.append(' ', el('strong', { dataset: { role: 'truncated', text: 'source' } }, cut));
          return { code: last.code, bytes: last.bytes.length, shape: r.shape };
        },
        (e) => {
          ctx.reportError('pytorch', e);
          last = null;
          copy.disabled = download.disabled = true;
          showCoreError(summary, e, i18n).prepend(t('pytorch.cannot'), ' ');
        });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
