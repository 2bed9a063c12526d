// hub-id.js — what names a Hub model: `model=hf:<org>/<name>[@<revision>]` and `hub=<url>` (a mirror;
// '' is the Hugging Face Hub). Small and free of I/O, so that the element can tell a Hub model from a
// served folder without loading the Hub's code (sources/hub.js).
import { fileError } from './model-files.js';
import '../i18n/catalogs/en/hub.js';  // the English words it speaks

export const DEFAULT_HUB = 'https://huggingface.co';

/** A Hub repository id: `name` or `org/name`, the Hub's own characters (no `..`, no `--` at the ends). */
const REPO_ID = /^(?:[A-Za-z0-9][\w.-]{0,95}\/)?[A-Za-z0-9][\w.-]{0,95}$/;
const REVISION = /^[\w.-][\w./-]{0,199}$/;

/** Whether a `model` value names a Hub model (`hf:…`) rather than a folder served beside the page. */
export const isHubModel = (model) => typeof model === 'string' && model.startsWith('hf:');

/** `hf:<org>/<name>[@<revision>]` (or the id alone) → { repo, revision }; an error naming `model` otherwise. */
export function parseHubModel(model) {
  const id = String(model).replace(/^hf:/, '').trim();
  const at = id.indexOf('@');
  const repo = at < 0 ? id : id.slice(0, at);
  const revision = at < 0 ? 'main' : id.slice(at + 1);
  if (!REPO_ID.test(repo) || repo.includes('..') || repo.includes('--')) {
    throw fileError('model', 'hub.badId', { model: String(model).slice(0, 120) }, RangeError);
  }
  if (!REVISION.test(revision) || revision.includes('..')) {
    throw fileError('model', 'hub.badRevision', { revision: revision.slice(0, 80) }, RangeError);
  }
  return { repo, revision };
}

/** The Hub's base URL (`hub` state: '' = the Hugging Face Hub), without a trailing slash. */
export function hubBase(hub) {
  if (!hub) return DEFAULT_HUB;
  let url;
  try {
    url = new URL(hub);
  } catch {
    throw fileError('hub', 'hub.badHub', { hub: String(hub).slice(0, 120) }, RangeError);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fileError('hub', 'hub.badHub', { hub: String(hub).slice(0, 120) }, RangeError);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
