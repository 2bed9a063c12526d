// core-errors.js — core errors across postMessage: the worker sends { name, message, field } as
// data (an Error's own properties do not survive structured cloning reliably), the page rebuilds
// an Error of the same class with the same `field` (the core's error.field, e.g. 'nKvHeads',
// 'weights.wq', 'model.nHeads'), so views place the message next to that field.
const ERROR_CLASSES = { RangeError, TypeError, Error };

/** Worker side: any thrown value -> plain data. */
export function serializeError(e) {
  return {
    name: e?.name ?? 'Error',
    message: e?.message ?? String(e),
    field: typeof e?.field === 'string' && e.field ? e.field : undefined,
  };
}

/** Page side: the data -> an Error of the same class, with `field` when the core named one. */
export function rebuildError({ name, message, field } = {}) {
  const e = new (ERROR_CLASSES[name] ?? Error)(message);
  if (name === 'AbortError') e.name = name;  // a stopped job (the page's AbortSignal), not a failure
  if (typeof field === 'string' && field) e.field = field;
  return e;
}
