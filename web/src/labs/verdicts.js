// verdicts.js — when a lab may state a verdict (pure: tests/node/web-lab-verdicts.test.mjs).

/**
 * '' when `steps` per model is enough for the lab to state a verdict, else the sentence that says it is
 * not: a lab draws no conclusion from runs shorter than the length its measurements settle at (docs/lab.md).
 */
export function tooFewSteps(steps, enough, what = 'a verdict') {
  return steps >= enough ? ''
    : `Only ${steps} step${steps === 1 ? '' : 's'} per model: too few for ${what} (the losses are still falling; `
      + `train at least ${enough}). The numbers so far: `;
}
