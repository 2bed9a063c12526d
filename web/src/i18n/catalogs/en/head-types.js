// head-types.js — the page's words in English: the lesson's head types under the attention maps
// (parts/head-types.js, a chunk that views/heatmap.js imports when the list is first opened).
import { addEnglish } from '../../english.js';

export default addEnglish({
  'headTypes.intro': 'Trained heads specialise, and surveys name these types. Seeded random weights have none: each button goes to where this page shows heads that learned one.',
  'headTypes.positional.name': 'Positional heads',
  'headTypes.positional.what': 'attend by position rather than by content: to a fixed offset, or to the first token, which many models use as a resting place (an attention sink).',
  'headTypes.positional.where': 'A checkpoint opened in the model view gets a table of head roles with its strongest first-token heads; the table of scores of the models trained on Shakespeare has a first-token column.',
  'headTypes.previous.name': 'Previous-token heads',
  'headTypes.previous.what': 'put far more of each query\'s weight on the token just before it than an even spread would, though not always most of it.',
  'headTypes.previous.where': 'The models trained on Shakespeare are scored for them: a map is titled with a role only where its score clearly beats an even spread (otherwise its title says that no role stands out), and the table under the maps gives every head\'s score and whether any head reaches a clear previous-token head\'s.',
  'headTypes.copy.name': 'Copy heads',
  'headTypes.copy.what': 'find an earlier token and carry it forward, so that the model can write it again.',
  'headTypes.copy.where': 'Lab 2 trains models on a copy task (a sequence, a separator, the same sequence again), and so does Lab 1 with its task set to copy (its default is two tokens back): to predict the second half, a head must read the matching earlier token. Train one there, then "Inspect in the attention view" draws its heads.',
  'headTypes.entity.name': 'Named-entity heads',
  'headTypes.entity.what': 'link the words that name one person, place or thing across a text.',
  'headTypes.entity.where': 'The small models trained on Shakespeare are not scored for this role. A real checkpoint opened in the model view is where one could look, in its maps; this page does not score heads for this role.',
  'headTypes.induction.name': 'Induction heads',
  'headTypes.induction.what': 'complete a repeat: after A B … A, attend to the B that followed the earlier A and predict it (the circuit behind in-context learning).',
  'headTypes.induction.where': 'Lab 4 trains a two-layer model that forms them, and scores every head as it learns.',
  'headTypes.go.model': 'Open a real model',
  'headTypes.go.scores': 'Scores of the trained models',
  'headTypes.go.trained': 'See the trained models\' layer 0',
  'headTypes.go.lab1': 'Go to Lab 1\'s copy task',
  'headTypes.go.lab2': 'Go to Lab 2',
  'headTypes.go.lab4': 'Go to Lab 4',
  'headTypes.opened': 'Opened in the full playground, in a new tab.',
  'headTypes.elsewhere': 'This page shows only the attention maps: open the full Attention Playground to see it.',
});
