// web-lab-verdicts.test.mjs: the labs state a verdict only from runs long enough for one (issue 9):
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
