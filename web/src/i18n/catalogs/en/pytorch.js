// pytorch.js — the page's words in English: the PyTorch twin (views/pytorch.js). Imported by the code that
// speaks them, so they come with its chunk; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the PyTorch twin ----
  'pytorch.copy': 'Copy the code',
  'pytorch.download': 'Download {file}',
  'pytorch.codeLabel': 'Generated PyTorch code',
  'pytorch.how': 'Save the code as twin.py next to the downloaded file and run python3 twin.py. It needs only PyTorch (1.13 or newer) and NumPy, and prints how far PyTorch\'s output is from this page\'s: around 1e-7, float32 rounding.',
  'pytorch.copied': 'Copied.',
  'pytorch.selected': 'Selected: press Ctrl+C (⌘C) to copy.',
  'pytorch.downloaded': { one: '{file}: {count} byte.', other: '{file}: {count} bytes.' },
  'pytorch.noStages': 'The PyTorch twin needs the weights and stages of a pass, which this source does not give:',
  'pytorch.typeSentence': 'Type a sentence to get its PyTorch twin.',
  'pytorch.summary': '{variant} on "{text}": the code below computes what this page computes, in PyTorch.',
  'pytorch.cannot': 'Cannot compute:',
  'pytorch.notDrawn': 'This code is for the lesson\'s block with seeded random weights and the form\'s shape, not for {model}, which the attention maps draw.',
  'pytorch.zooModel': 'the bundled {variant} model trained on Shakespeare',
});
