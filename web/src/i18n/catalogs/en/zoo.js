// zoo.js — the page's words in English: the bundled models trained on Shakespeare as a source of maps
// (sources/zoo-model.js: its summary, each head's label (sources/zoo-roles.js), the notes under the maps (sources/zoo-notes.js)). Imported by
// that source, so they come with its chunk, not with the first map's; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  'zoo.which': 'Model: {label}, seed {seed}, {bits} bits per token on held-out Shakespeare. Each head is labelled with the role that stands out, if any.',
  'zoo.trainedHow': { one: 'How they were trained: {steps} steps of {tokens} tokens each, one seed ({seeds}; the spread over seeds is not measured yet), {hours} CPU-hours for the six models.', other: 'How they were trained: {steps} steps of {tokens} tokens each, {count} seeds ({seeds}), {hours} hours of training runs (one core each) for the six models and their seeds.' },
  'zoo.synthetic': 'Each model first learned to copy: {steps} steps on short windows of {length} random words in which a stretch is written twice, then the text.',
  'zoo.syntheticStretches': 'This model first learned to copy: {steps} steps on short windows of {length} random words in which a stretch of {min} to {max} words is written twice, then the text.',
  'zoo.syntheticLengthen': 'This model first learned to copy on windows of random words in which a stretch is written twice, windows of {length} words (stretches of {min} to {max}), then of {lengths} words in turn, each until one head\'s induction score on them reached {until} (at most {steps} steps on the first, {later} on each of the others), then the text.',
  'zoo.curriculum': '{percent} % of the training windows repeat a stretch of their own text (a copying curriculum, which gives induction heads something to learn).',
  'zoo.curriculumRandom': '{percent} % of the training windows hold a stretch of random words written twice: its second copy can only be predicted by copying the first, as an induction head does. The induction score is measured on other sequences of that kind (random words, repeated), never trained on.',
  'zoo.floor.previousToken.met': 'This model has a clear previous-token head: layer {layer} head {head} scores {best} (a clear one scores {floor} or more).',
  'zoo.floor.previousToken.missed': 'This model has no clear previous-token head: its best scores {best} (layer {layer} head {head}), and a clear one scores {floor} or more.',
  'zoo.floor.induction.met': 'This model has a clear induction head: layer {layer} head {head} scores {best} (a clear one scores {floor} or more).',
  'zoo.floor.induction.missed': 'This model has no clear induction head: its best scores {best} (layer {layer} head {head}), and a clear one scores {floor} or more.',
  'zoo.floor.previousToken.none': 'This model has no previous-token head: none scores enough for a label. Its best, layer {layer} head {head}, scores {best}, below the {bar} a label needs (uniform attention scores {uniform} here), and a clear one scores {floor} or more.',
  'zoo.floor.induction.none': 'This model has no induction head: none scores enough for a label. Its best, layer {layer} head {head}, scores {best}, below the {bar} a label needs (uniform attention scores {uniform} here), and a clear one scores {floor} or more.',
  'zoo.floor.without': 'Models of the zoo without one: {models}.',
  'zoo.floor.noOther': 'No other model of the zoo has one either.',
  'zoo.role.previous': 'previous token {value}',
  'zoo.role.self': 'self {value}',
  'zoo.role.first': 'first token {value}',
  'zoo.role.induction': 'induction {value}',
  'zoo.role.none': 'no role stands out',
});
