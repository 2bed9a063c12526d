// zoo-runs.mjs — the zoo's training runs kept on disk (scripts/zoo.mjs): each run trains in a folder
// of its own, named by its variant, seed and a hash of its settings, and a run found there whole is
// read back instead of trained again. So an interrupted retrain goes on where it stopped, and adding
// seeds trains only the new ones. Tested by tests/node/zoo-runs.test.mjs.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The folder of one run below `runsDir`: `<name>-s<seed>-<12 hex of the settings' hash>`. */
export function runFolder(runsDir, name, seed, settings) {
  const hash = createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 12);
  return join(runsDir, `${String(name).replace(/[^\w.-]+/g, '_')}-s${seed}-${hash}`);
}

/**
 * The result of the run kept in `dir`, or, when there is none, of `produce(work)`: it trains into the
 * empty folder `work` and resolves to the run's result (JSON), which is written beside its files; the
 * folder then becomes `dir` in one rename, so a run stopped part-way leaves no `dir` (its `work` is
 * cleared by the next attempt). Resolves to { result, kept } (kept: read back, not produced).
 * @param {string} dir  @param {(work: string) => Promise<object>} produce
 */
export async function keptRun(dir, produce) {
  const resultFile = join(dir, 'result.json');
  if (existsSync(resultFile)) return { result: JSON.parse(readFileSync(resultFile, 'utf8')), kept: true };
  const work = `${dir}.partial`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const result = await produce(work);
  writeFileSync(join(work, 'result.json'), `${JSON.stringify(result)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  return { result, kept: false };
}
