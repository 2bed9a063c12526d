// rng.js — a small deterministic generator, shared by the seeded embedding (tokens.js), the head-roles
// probes (sources/head-roles.js) and the worker's sampling; a module of its own, so that the first map
// carries it only where it is used.

/** A small deterministic generator (mulberry32): numbers in [0, 1), the same for the same state. */
export function rng(state) {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
