// zoo.js — the page's words in English: the bundled models trained on Shakespeare as a source of maps
// (sources/zoo.js: its summary, its notes on the sentence's characters, each head's label, chosen by sources/zoo-roles.js). Imported by
// that source, so they come with its chunk, not with the first map's; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  'zoo.which': 'Model: {label}, seed {seed}, {bits} bits per character on held-out Shakespeare. Each head is labelled with the role that stands out, if any.',
  'zoo.cut': 'Only the first 64 characters are used ({count} left out).',
  'zoo.unknown': 'Characters the Shakespeare corpus never uses are left out: {chars}',
  'zoo.noChars': 'none of the sentence\'s characters occur in the Shakespeare corpus the model was trained on',
  'zoo.role.previous': 'previous token {value}',
  'zoo.role.self': 'self {value}',
  'zoo.role.first': 'first token {value}',
  'zoo.role.induction': 'induction {value}',
  'zoo.role.none': 'no role stands out',
});
