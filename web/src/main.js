// main.js — entry of index.html and embed.html: defines <attention-playground>. embed.html also
// tells its parent page how tall it is, so an iframe can be sized to its content.
import './element.js';

if (window.parent !== window) {
  const post = () => window.parent.postMessage(
    { type: 'attention-playground:height', height: document.documentElement.scrollHeight }, '*');
  new ResizeObserver(post).observe(document.documentElement);
}
