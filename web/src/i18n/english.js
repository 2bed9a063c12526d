// english.js — the English words the page has loaded: the shell's (catalogs/en/shell.js, in the main
// bundle) and those of every view chunk that has arrived (each file of catalogs/en/ adds its own when
// it is imported). English is the reference language and the fallback of every other one.
import shell from './catalogs/en/shell.js';

/** key -> message: grows as view chunks arrive. */
export const ENGLISH = { ...shell };

/** Adds a file's words to ENGLISH (catalogs/en/*.js call it as they are imported); returns them. */
export function addEnglish(words) {
  Object.assign(ENGLISH, words);
  return words;
}
