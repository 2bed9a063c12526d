// keys.js — names of the worker's trainers, unique to this page.
let keyCounter = 0;
/** A worker-side trainer key unique to this page. */
export const trainerKey = (prefix) => `${prefix}-${++keyCounter}-${Math.random().toString(36).slice(2, 8)}`;
