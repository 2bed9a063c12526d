// map-fit.js — the page's words in English: small maps that fit one screen and the larger map
// (render/map-fit.js). Imported by the code that speaks them, so they come with its chunk.
import { addEnglish } from '../../english.js';

export default addEnglish({
  'mapFit.keys': 'Arrow keys read the cells, Enter opens the map large.',
  'mapFit.note': 'Small maps, every head on one screen: click a map, or press Enter on it, to open it large.',
  'mapFit.large': '{title} (large)',
  'mapFit.region': 'The map opened large',
  'mapFit.close': 'Close the large map',
});
