// main.js — entry of index.html and embed.html: starts the core worker, then defines
// <attention-playground>. embed.html also tells its parent page how tall it is, so an iframe can
// be sized to its content.
//
// Order matters for the first map. On a cold load the worker's start and the core's download and
// compile take longer than the page's own code (docs/performance.md), so the worker is started
// first, from this file and the client's small chunk, and the element's code (with its views)
// downloads and runs while the core loads. The element finds the worker running: client.js keeps
// one per page. (Pages that load attention-playground.js alone start it when the element mounts.)
import { pageClient } from './client.js';

pageClient().call('info').catch(() => {});  // the element asks again and shows a failure

import('./element.js').catch((e) => {
  for (const el of document.querySelectorAll('attention-playground')) {
    el.textContent = `The playground's code failed to load (${e.message}). Reload the page to try again.`;
  }
});

if (window.parent !== window) {
  const post = () => window.parent.postMessage(
    { type: 'attention-playground:height', height: document.documentElement.scrollHeight }, '*');
  new ResizeObserver(post).observe(document.documentElement);
}
