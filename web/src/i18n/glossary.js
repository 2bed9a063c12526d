// glossary.js — the short glossary every catalog follows. Each entry: the English term (a pattern
// over the English message), and how each language writes it. Terms the lesson writes as symbols or
// code stay as they are in every language (`same: true`). tests/node/i18n.test.mjs checks that a
// message whose English has the term has the language's rendering of it.
export const GLOSSARY = [
  // Symbols and code: as the lesson writes them, in every language.
  { en: /\bQ\b/, same: 'Q' },
  { en: /\bK\b/, same: 'K' },
  { en: /\bV\b/, same: 'V' },
  { en: /\bW_o\b/, same: 'W_o' },
  { en: /\bd_model\b/, same: 'd_model' },
  { en: /\bd_head\b/, same: 'd_head' },
  { en: /\bKV cache\b/, same: 'KV cache' },
  { en: /\bMHA\b/, same: 'MHA' },
  { en: /\bMQA\b/, same: 'MQA' },
  { en: /\bGQA\b/, same: 'GQA' },
  { en: /\bMLA\b/, same: 'MLA' },
  { en: /\bRoPE\b/, same: 'RoPE' },
  { en: /\brepeat_interleave\b/, same: 'repeat_interleave' },
  { en: /\bsoftmax\b/, same: 'softmax' },
  // Words: each language's rendering.
  { en: /\bheads?\b/i, hi: 'हेड' },
  { en: /\blayers?\b/i, hi: 'लेयर' },
  { en: /\btokens?\b/i, hi: 'टोकन' },
  { en: /\bquer(y|ies)\b/i, hi: 'क्वेरी' },
  { en: /\bweights?\b/i, hi: 'वेट' },
  { en: /\bparameters?\b/i, hi: 'पैरामीटर' },
  { en: /\bmodels?\b/i, hi: 'मॉडल' },
  { en: /\blatent\b/i, hi: 'लेटेंट' },
  { en: /\bvariants?\b/i, hi: 'वेरिएंट' },
  { en: /\bsequences?\b/i, hi: 'सीक्वेंस' },
  { en: /\bLab\b/, hi: 'लैब' },
];
