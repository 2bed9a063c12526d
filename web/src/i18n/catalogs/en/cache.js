// cache.js — the page's words in English: what one token's KV-cache row holds (render/cache-words.js),
// said by the compare and decode views. Imported by the code that speaks them, so they come with its
// chunk; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  'cache.what.latent': 'latent c',
  'cache.what.latentRope': 'latent c + RoPE key kr',
  'cache.what.kv': { one: 'K and V of {count} K/V head', other: 'K and V of {count} K/V heads' },
});
