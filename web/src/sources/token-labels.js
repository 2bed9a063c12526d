// sources/token-labels.js — how a checkpoint's tokens are shown: the text each token stands for
// (the tokenizer's decode of that one id: "Ġcat" of a byte-level BPE and "▁cat" of SentencePiece both
// read " cat"), with spaces, line breaks and tabs made visible (" cat" shows as "␣cat", so that a
// learner sees where words start); the vocabulary's own spelling where one id's
// text is not text on its own (a partial UTF-8 byte). Labels are kept one-to-one with ids, so that a
// label the page hands back (the decode view appends tokens by label) finds its id again: a second
// id whose text is already taken shows its vocabulary spelling beside it.

const VISIBLE = { ' ': '␣', '\n': '↵', '\r': '␍', '\t': '⇥' };
/** `text` with its spaces, line breaks and tabs made visible. */
export const visible = (text) => text.replace(/[ \n\r\t]/g, (c) => VISIBLE[c]);

/**
 * @param {{ decode(ids: number[]): string, idToToken(id: number): string | undefined, tokenToId(t: string): number | undefined } | null} tokenizer
 * @returns {{ label(id: number): string, idOf(label: string): number }}
 */
export function tokenLabels(tokenizer) {
  if (!tokenizer) return { label: (id) => String(id), idOf: (t) => Number(t) };
  const byId = new Map(), byLabel = new Map();
  const label = (id) => {
    let l = byId.get(id);
    if (l !== undefined) return l;
    const piece = tokenizer.idToToken(id);
    if (piece === undefined) l = `#${id}`;
    else {
      let text = '';
      try { text = tokenizer.decode([id]); } catch { text = ''; }
      l = text && !text.includes('\uFFFD') ? visible(text) : piece;
    }
    if (byLabel.has(l)) l = `${l} (${piece ?? `#${id}`})`;
    byId.set(id, l);
    byLabel.set(l, id);
    return l;
  };
  const idOf = (t) => byLabel.get(t) ?? tokenizer.tokenToId(t) ?? Number.NaN;
  return { label, idOf };
}
