// play-shape.js — the page's words in English: "Load shape" (parts/playground-shape.js). Imported by the
// code that speaks them, so they come with its chunk; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- "Load shape": what the seeded maps can hold ----
  'playShape.rule': 'the seeded weights stay small: dModel at most {dModel}, one block at most {weights} weights, the model\'s query and K/V heads kept',
  'playShape.scaled': 'Scaled so that {rule}: {notes}.',
});
