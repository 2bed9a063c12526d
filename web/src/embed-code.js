// embed-code.js — what "Copy embed code" writes: an iframe of embed.html for the current state, and a
// small inline script that sizes it from the height embed.html posts to its parent (main.js:
// { type: 'attention-playground:height', height }), accepting only messages from that iframe's own
// window. Imported on the click, so that the first map's bundle does not carry it (docs/embedding.md).
import { escapeHtml } from './kit.js';

/**
 * @param {string} src  the iframe's URL (embed.html?...)
 * @param {string} title  its accessible name
 * @param {string} [id]  the iframe's id (unique on the course page: one snippet per iframe)
 * @returns {string} HTML: the iframe, then its script
 */
export function embedCode(src, title, id = `attention-playground-${Date.now().toString(36)}`) {
  const frame = `<iframe id="${escapeHtml(id)}" src="${escapeHtml(src)}" title="${escapeHtml(title)}" loading="lazy" style="width:100%;border:0" height="520"></iframe>`;
  // The height is a number from the iframe, checked before use; the id is ours (letters, digits, '-').
  const script = `<script>addEventListener('message', function (e) {
  var f = document.getElementById(${JSON.stringify(id)}), h = e.data && e.data.type === 'attention-playground:height' && Number(e.data.height);
  if (f && e.source === f.contentWindow && h > 0 && h < 100000) f.height = String(Math.ceil(h));
});</script>`;
  return `${frame}\n${script}`;
}
