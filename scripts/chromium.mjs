// chromium.mjs — how the browser tests (tests/e2e) and `npm run bench:page` start Debian's Chromium
// through playwright-core: headless, no network of its own (no background requests, updates, sync
// or QUIC), and by default without the browser-window UI that is not the page.
//
// Why the window UI is off: every new context or page of a headless Chromium 15x is a new window, and
// a new window starts its omnibox popup, a WebUI renderer of its own, while the page loads. On these
// 2-core machines it takes the CPU the page needs and delays the first map by ~130-180 ms
// (docs/performance.md, page loads); a learner's open window has paid it long before
// they visit the page.
// The page itself is unchanged by these features. `stockWindow: true` keeps Chromium's defaults.

/** The omnibox popup WebUI of each new window, and its preloading. */
export const WINDOW_UI_OFF = '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI';

/**
 * Options for chromium.launch / chromium.launchPersistentContext.
 * @param {{ stockWindow?: boolean }} [options] stockWindow: keep the new window's omnibox WebUI
 */
export function chromiumOptions({ stockWindow = false } = {}) {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'];
  if (!stockWindow) args.push(WINDOW_UI_OFF);
  return { executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args };
}
