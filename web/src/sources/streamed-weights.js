// streamed-weights.js — a weights file downloaded as the worker reads it. The download's body is split
// in two (teeInStep): one branch is moved to the core's worker, whose loadPretrained reads it as
// `{ stream, size }` and copies each chunk into the wasm heap as it arrives; the other goes where the
// page keeps the file (the Hub's store, sources/model-store.js) or is read and dropped (a folder beside
// the page), so that the download still counts, checks and finishes its bytes. Used by sources/hub.js
// (a Hub model's single weights file) and sources/model-files.js (a folder's model.safetensors).
/** Whether this browser can move a ReadableStream to a worker (transferable streams; not everywhere yet). */
export function streamsTransfer() {
  try {
    const s = new ReadableStream();
    structuredClone(s, { transfer: [s] });
    return true;
  } catch {
    return false;
  }
}

/** How far (bytes) one branch of teeInStep may read ahead of the other. */
export const TEE_AHEAD_BYTES = 16 * 2 ** 20;

/**
 * Two branches of `stream` that keep pace with each other: a branch that is `ahead` bytes past the
 * other waits for it. (ReadableStream.tee() reads as fast as the faster branch and queues every chunk
 * for the slower one: a store slower than the worker's heap then held a large part of the file in
 * memory, 0.6 GB for a 1 GB model.) A read error errors both; the source is cancelled when both are.
 * @param {ReadableStream<Uint8Array>} stream @returns {[ReadableStream<Uint8Array>, ReadableStream<Uint8Array>]}
 */
export function teeInStep(stream, ahead = TEE_AHEAD_BYTES) {
  const reader = stream.getReader();
  const reads = [];              // reads[k - first]: chunk k's read, kept until every live branch took it
  let first = 0;
  const at = [0, 0], bytes = [0, 0], cancelled = [false, false];
  const waiting = [null, null];  // a branch's pull waiting for the other to catch up
  const wake = (i) => { waiting[i]?.(); waiting[i] = null; };
  const prune = () => {
    const low = Math.min(...[0, 1].filter((j) => !cancelled[j]).map((j) => at[j]));
    while (reads.length && first < low) { reads.shift(); first++; }
  };
  const branch = (i) => new ReadableStream({
    async pull(controller) {
      const o = 1 - i;
      while (!cancelled[o] && bytes[i] - bytes[o] >= ahead) await new Promise((resolve) => { waiting[i] = resolve; });
      const k = at[i];
      if (k - first === reads.length) {
        const read = reader.read();
        read.catch(() => {});  // each branch that reaches it sees the error
        reads.push(read);
      }
      const r = await reads[k - first];
      at[i] = k + 1;
      if (!r.done) bytes[i] += r.value.length;
      prune();
      wake(o);
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel(reason) {
      cancelled[i] = true;
      prune();
      wake(1 - i);
      return cancelled[1 - i] ? reader.cancel(reason) : undefined;
    },
  }, { highWaterMark: 0 });
  return [branch(0), branch(1)];
}

/** The length of an answer's body as it will be read, or 0 when the answer does not say it (or says it compressed). */
export function bodyLength(res) {
  const encoding = res.headers.get('content-encoding');
  if (encoding && encoding !== 'identity') return 0;
  const n = Number(res.headers.get('content-length'));
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/**
 * One weights file downloaded as the worker reads it: { start(), done, stop() }.
 * - `download({ signal, into })` is model-files.js's download() of the file with that sink (null when
 *   the file is not there, an optional file's 404); `size` its length where known before the answer;
 * - `keepInto(stream)` takes the branch that is not the worker's: a promise of its writing (the Hub's
 *   store), or null, when the branch is read and dropped; a SinkError of it calls `dropKeep()` and the
 *   worker's branch goes on;
 * - `settle()` runs after the whole file has passed and resolves to whether it was kept; `abandon()`
 *   after a failure (a failure part-way keeps nothing).
 * start() begins the download (once) and resolves to what the worker reads, `{ stream, size }` (or
 * `{ blob }` when the answer does not say its length, or null when the file is not there); `done`
 * then resolves to settle()'s answer or rejects with the download's error (a lost connection, a short
 * body, Stop); stop() ends the download (the open failed in the worker).
 */
export function streamedWeights({ download, size = 0, signal, keepInto = () => null, dropKeep = async () => {}, settle = async () => false,
  abandon = async () => {} }) {
  const controller = new AbortController();
  const stop = () => controller.abort(signal?.reason ?? new DOMException('The download was stopped', 'AbortError'));
  let done = null, started = null;
  return {
    get done() { return done; },
    stop,
    start() {
      if (started) return started;
      signal?.throwIfAborted();
      signal?.addEventListener('abort', stop, { once: true });
      let handOff;
      const body = new Promise((resolve) => { handOff = resolve; });
      const into = (counted, res) => {
        const length = size || bodyLength(res);
        if (!length) {  // the worker needs the length first: this file is downloaded whole, then read
          const blob = new Response(counted).blob();
          blob.then((b) => handOff({ blob: b }), () => {});
          return blob;
        }
        const [toKeep, toWorker] = teeInStep(counted);
        handOff({ stream: toWorker, size: length });
        const keeping = keepInto(toKeep);
        if (!keeping) return toKeep.pipeTo(new WritableStream());  // read and dropped: the download still counts its bytes
        // a store that refuses the file (a full disk) may not read its branch: cancelled, it holds no bytes
        return keeping.catch((e) => { toKeep.cancel(e).catch(() => {}); throw e; });
      };
      const downloading = (async () => {
        try {
          return await download({ signal: controller.signal, into });
        } catch (e) {
          if (e?.name !== 'SinkError') throw e;  // model-files.js's: where the file was being written failed
          await dropKeep();  // the disk refused it: the worker's branch goes on, the file is not kept
          return true;
        }
      })();
      done = downloading.then(async () => settle())
        .catch(async (e) => { await abandon(); throw e; })
        .finally(() => signal?.removeEventListener('abort', stop));
      done.catch(() => {});
      started = Promise.race([body, downloading.then((got) => (got === null ? null : body))]);
      return started;
    },
  };
}
