// glossary.js — the short glossary every catalog follows. Each entry: the English term (a pattern
// over the English message), and how each language writes it (one word; several only where they are
// the forms of that one word, or where English has one word for two things: a value of attention, V,
// and a number's value). Terms the lesson writes as symbols or code stay as they are in every language
// (`same`). `avoid` lists what a language must never write for the term (its other spellings, the
// English word left in Latin letters). tests/node/i18n.test.mjs checks that a message whose English has
// the term has the language's rendering of it; tests/node/glossary.test.mjs that no message writes an
// avoided variant.
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
  { en: /\bquer(y|ies)\b/i, hi: 'क्वेरी', avoid: { hi: [/\bquer(y|ies)\b/i] } },
  // key: कुंजी (plural कुंजियाँ, oblique कुंजियों), never Latin "key(s)" nor the possessive-like की.
  { en: /\bkeys?\b/i, hi: ['कुंजी', 'कुंजियाँ', 'कुंजियों'], avoid: { hi: [/\bkeys?\b/i, /कीज़/] } },
  // value: वैल्यू for V (what a head mixes), मान for a number's value; never Latin "value(s)".
  { en: /\bvalues?\b/i, hi: ['वैल्यू', 'मान'], avoid: { hi: [/\bvalues?\b/i, /वैल्यूज़/] } },
  { en: /\bcolumns?\b/i, hi: 'कॉलम', avoid: { hi: [/स्तंभ/, /\bcolumns?\b/i] } },
  // large counts as Intl writes them in hi-IN (fmt.count: "8 अरब", "13 करोड़")
  { en: /\bbillions?\b/i, hi: 'अरब', avoid: { hi: [/बिलियन/] } },
  { en: /\bmillions?\b/i, hi: 'दस लाख', avoid: { hi: [/मिलियन/] } },
  { en: /\bweights?\b/i, hi: 'वेट' },
  { en: /\bparameters?\b/i, hi: 'पैरामीटर' },
  { en: /\bmodels?\b/i, hi: 'मॉडल' },
  { en: /\blatent\b/i, hi: 'लेटेंट' },
  { en: /\bvariants?\b/i, hi: 'वेरिएंट' },
  { en: /\bsequences?\b/i, hi: 'सीक्वेंस' },
  { en: /\bLab\b/, hi: 'लैब' },
];
