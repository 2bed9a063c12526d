// web-lab-verdicts.test.mjs: the labs state a verdict only from runs long enough for one:
// below a lab's settled run length it gives numbers and says they are too few (browser tests: lab-a, lab-b).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO } from './helpers.mjs';

const { tooFewSteps } = await import(pathToFileURL(path.join(REPO, 'web/src/labs/verdicts.js')).href);

test('tooFewSteps: a sentence below the threshold, nothing at or above it', () => {
  assert.equal(tooFewSteps(200, 200), '');
  assert.match(tooFewSteps(1, 200, 'a verdict on X'), /^Only 1 step per model: too few for a verdict on X .*at least 200/);
});

const { summariseHeads, roleOf } = await import(pathToFileURL(path.join(REPO, 'web/src/labs/verdicts.js')).href);

test('summariseHeads: neighbours within 0.02 nats or 10 % are the same, else better or worse (Lab 1\'s 200-step losses)', () => {
  const { verdicts, sentence } = summariseHeads([1, 2, 4, 8, 16], [0.017, 0.021, 0.029, 0.051, 0.218], 200);
  assert.deepEqual(verdicts, ['plateau', 'plateau', 'hurt', 'hurt']);
  assert.match(sentence, /^More heads make no difference from 1 to 4 heads; more heads hurt from 4 to 16 heads\. .*lowest at 1 head\./);
  assert.match(summariseHeads([1, 2], [0.5, 0.1], 199).sentence, /^Only 199 steps per model: too few/);
});

test('roleOf: the highest score above 0.5 names the role, none when no score is clear', () => {
  assert.equal(roleOf({ previousToken: 0.61, induction: 0.03, firstToken: 0.04, diagonal: 0.08 }), 'previous-token head');
  assert.equal(roleOf({ previousToken: 0.55, induction: 0.8, firstToken: 0.1, diagonal: 0.1 }), 'induction head');
  assert.equal(roleOf({ previousToken: 0.3, induction: 0.2, firstToken: 0.5, diagonal: 0.1 }), '');
});
