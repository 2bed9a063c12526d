// sources.js — the page's words in English: the trained and pretrained sources (sources/trained.js,
// sources/pretrained.js) and the reasons a checkpoint's files cannot be read (sources/model-files.js;
// such an error keeps this English text as its message and carries its key for the page's language).
// Imported by the code that speaks them, so they come with its chunk.
import { addEnglish } from '../../english.js';

export default addEnglish({
  'sources.trained': 'trained model: {title}',
  'sources.back': 'Back to the random-weight model',
  'sources.cut': 'only the first {max} tokens are used',
  'sources.tokenizerSlow': '{field}: this model\'s tokenizer took more than {cap} s to split it and was stopped (a regular expression in its tokenizer.json may backtrack); try a shorter or plainer sentence',
  'sources.notAnId': 'text: \'{word}\' is not a token id of this model (0 to {last}); this folder has no tokenizer.json, so type token ids separated by spaces',
  'sources.noConfig': { one: 'no config.json among the {count} file given: open the checkpoint\'s folder, or select its config.json, *.safetensors and tokenizer.json together',
    other: 'no config.json among the {count} files given: open the checkpoint\'s folder, or select its config.json, *.safetensors and tokenizer.json together' },
  'sources.noWeights': 'no .safetensors file among the files given (a .bin or .gguf checkpoint cannot be opened here)',
  'sources.badJson': '{name} is not valid JSON ({reason})',
  'sources.notUrl': 'model (\'{model}\') is not a URL',
  'sources.otherSite': 'model (\'{model}\') is on another site: only a folder served beside the page can be opened',
  'sources.unreadable': '{file} could not be read from the model folder (HTTP {status})',
  'sources.noSafetensors': 'the model folder has neither model.safetensors nor model.safetensors.index.json',
  'sources.network': 'the connection was lost while {file} was downloading ({reason}): nothing of it was kept; try again',
  'sources.truncated': '{file} ended after {loaded} of its {size} bytes: nothing of it was kept; try again',
  'sources.badIndex': '{name} has no weight_map listing the shard files',
  'sources.badShard': 'model.safetensors.index.json names a shard \'{shard}\' that is not a plain .safetensors file name in the model\'s folder',
});
