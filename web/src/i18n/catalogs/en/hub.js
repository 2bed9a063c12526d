// hub.js — the page's words in English: opening a model from the Hugging Face Hub (sources/hub.js,
// parts/hub-open.js) and the models kept in this browser (sources/model-store.js). Imported by the code
// that speaks them, so they come with its chunk.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the form (parts/hub-open.js) ----
  'hub.title': 'Open a model from the Hugging Face Hub',
  'hub.idLabel': 'Model id',
  'hub.open': 'Open',
  'hub.intro': 'Type a model id, or pick one of these small public models the page reads. Nothing is downloaded until you open one; it is then kept in this browser and opens again offline.',
  'hub.pickLabel': 'Suggested models',
  'hub.suggestion': '{variant}, {H} query heads : {G} K/V heads, download about {size}',
  'hub.from': 'from {hub}',
  'hub.kept': 'Models kept in this browser',
  'hub.keptNone': 'None yet.',
  'hub.keptItem': '{repo} · {size}',
  'hub.openKept': 'Open',
  'hub.delete': 'Delete',
  'hub.deleteLabel': 'Delete {repo} from this browser',
  'hub.notKept': 'This browser did not keep the files (storage refused, as in a private window): the model is open, but will download again next time.',
  'hub.fromStore': 'opened from this browser\'s copy, with no download',
  'hub.retry': 'Try again',
  // ---- why a model is not opened (sources/hub.js; each error keeps this English as its message) ----
  'hub.badId': 'model (\'{model}\') is not a Hub model id: write it as hf:<organisation>/<name>, e.g. hf:HuggingFaceTB/SmolLM2-135M',
  'hub.badRevision': 'model: the revision \'{revision}\' after @ is not a branch, tag or commit name',
  'hub.badHub': 'hub (\'{hub}\') is not an http(s) URL of a Hub or a mirror',
  'hub.gated': '{repo} needs a Hugging Face login (HTTP {status}): it is gated or private. Download its files on huggingface.co and drop them here instead.',
  'hub.notFound': '{repo} has no {file} on the Hub (HTTP 404): check the id and the revision',
  'hub.status': '{repo}: the Hub answered HTTP {status} for {file}',
  'hub.badListing': 'the Hub\'s file listing of {repo} could not be read',
  'hub.noConfig': '{repo} has no config.json: it is not a model the page can read',
  'hub.noShard': '{repo}: model.safetensors.index.json names {file}, which the repository does not have',
  'hub.noSafetensors': '{repo} has no .safetensors weights',
  'hub.onlyOther': '{repo} has its weights only as {file}: the page reads .safetensors files',
  'hub.tooBig': '{repo} has {size} of weights, more than the {max} a WebAssembly page can hold: nothing was downloaded',
  'hub.tooBigDevice': '{repo} has {size} of weights, more than half of this device\'s {memory} of memory: nothing was downloaded',
  'hub.dtype': '{repo} stores its weights as {dtype}: the page reads float32, float16 and bfloat16 checkpoints; nothing was downloaded',
  'hub.unsupported': '{repo} cannot be read: {reason}. Nothing was downloaded.',
});
