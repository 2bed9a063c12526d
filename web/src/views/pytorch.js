// pytorch.js — the PyTorch twin: the code a learner writes next for the current settings (MHA through
// nn.MultiheadAttention, GQA/MQA through repeat_interleave or scaled_dot_product_attention(enable_gqa=True),
// MLA written out), a "Copy" button, and a "Download" button for one .safetensors file with the input,
// the weights and this page's own output. Run, the code prints `max abs diff vs the page: <number>`.
// The code and the file come from lesson/pytorch-twin.js; the numbers from the view's source's stages
// (the seeded source's pass in the worker: its input x, the weights it used and the resolved shape;
// the core checks the shape before anything is embedded).
import lessonCss from '../styles/lesson.css?inline';
import { createLatest, downloadBlob, el, inPageWords, setViewState, variantLabel, useStyles } from '../kit.js';
import { TWIN_FILE, pytorchCode, twinFile } from '../lesson/pytorch-twin.js';

export function createPytorchView(root, ctx) {
  useStyles(root, 'lesson', lessonCss);
  const latest = createLatest(root);
  let last = null;  // { code, bytes, shape }

  const summary = el('p', { className: 'note', dataset: { role: 'summary' } });
  const copy = el('button', { type: 'button', dataset: { action: 'copy-code' }, disabled: true }, 'Copy the code');
  const download = el('button', { type: 'button', className: 'primary', dataset: { action: 'download' }, disabled: true },
    `Download ${TWIN_FILE}`);
  const status = el('span', { className: 'note', dataset: { role: 'status' }, 'aria-live': 'polite' });
  const code = el('code', { dataset: { role: 'code' } });
  const pre = el('pre', { className: 'code-block', tabindex: '0', 'aria-label': 'Generated PyTorch code' }, code);
  const how = el('p', { className: 'note' },
    `Save the code as twin.py next to the downloaded file and run python3 twin.py. It needs only PyTorch (1.13 or newer) `
    + 'and NumPy, and prints how far PyTorch\'s output is from this page\'s: around 1e-7, float32 rounding.');
  root.replaceChildren(summary, el('div', 'wt-buttons', download, copy, status), how, pre);

  copy.addEventListener('click', async () => {
    if (!last) return;
    try {
      await navigator.clipboard.writeText(last.code);
      status.textContent = 'Copied.';
    } catch {
      const range = document.createRange();   // no clipboard permission: select it for Ctrl+C
      range.selectNodeContents(code);
      const sel = root.getRootNode().getSelection?.() ?? window.getSelection();
      sel?.removeAllRanges();
      sel?.addRange(range);
      status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  });
  download.addEventListener('click', () => {
    if (!last) return;
    downloadBlob(new Blob([last.bytes], { type: 'application/octet-stream' }), TWIN_FILE, root);
    status.textContent = `${TWIN_FILE}: ${last.bytes.length.toLocaleString('en')} bytes.`;
  });

  return {
    update(state) {
      const source = ctx.sourceFor('pytorch', state);
      const tokens = source.tokens(state);
      if (!source.stages) {
        latest.cancel();
        summary.textContent = `The PyTorch twin needs the weights and stages of a pass, which ${source.title} does not give.`;
        setViewState(root, 'ready', { code: '' });
        return undefined;
      }
      if (tokens.length === 0) {
        latest.cancel();
        summary.textContent = 'Type a sentence to get its PyTorch twin.';
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
          summary.textContent = `${variantLabel(r.shape.variant)} on "${text}": the code below computes what this page computes, in PyTorch.`;
          if (cut) summary.append(' ', el('strong', { dataset: { role: 'truncated' } }, cut));
          return { code: last.code, bytes: last.bytes.length, shape: r.shape };
        },
        (e) => {
          ctx.reportError('pytorch', e);
          last = null;
          copy.disabled = download.disabled = true;
          summary.textContent = `Cannot compute: ${inPageWords(e.message)}`;
        });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
