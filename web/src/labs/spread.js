// spread.js — what several seeds say (pure: tests/node/web-lab-verdicts.test.mjs): each configuration's
// mean and standard deviation over its seeds, the difference of two configurations with its standard
// error, and whether training has settled (held-out loss no longer falling). A lab names a winner only
// when a difference is larger than twice its standard error and the runs have settled.

/** Seeds per configuration in the labs that compare configurations: each a different initialisation and data order (the trainer's seed). */
export const SEEDS = [0, 1, 2];

/** Mean, sample standard deviation (0 for one value) and count of finite values. */
export function meanSd(xs) {
  const v = xs.filter(Number.isFinite);
  const n = v.length;
  if (!n) return { mean: NaN, sd: NaN, n: 0 };
  const mean = v.reduce((s, x) => s + x, 0) / n;
  const sd = n > 1 ? Math.sqrt(v.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, sd, n };
}

/**
 * The mean of several seeds' curves ([[step, value], ...] each) at the steps every one of them has
 * reached: the curve a lab draws for one configuration while its seeds train.
 * @param {[number, number][][]} curves
 * @returns {[number, number][]}
 */
export function meanCurve(curves) {
  const [first, ...rest] = curves;
  return (first ?? []).filter(([st]) => rest.every((c) => c.some(([x]) => x === st)))
    .map(([st]) => [st, meanSd(curves.map((c) => c.find(([x]) => x === st)[1])).mean]);
}

/** Differences smaller than this many standard errors are "no measurable difference". */
export const MEASURABLE_SE = 2;

/**
 * A measurable difference in held-out loss smaller than this (nats per token) is "negligible": clear,
 * but too small to matter. 0.01 nats is a factor e^0.01 = 1.010 in perplexity (1 %), and it is the
 * amount a run counted as settled may still fall over its last fifth (SETTLED_NATS): a gap no larger
 * than what a little more training moves is not a difference between designs. The same for every lab
 * (Lab 3's bits per character: NEGLIGIBLE_NATS / ln 2 = 0.0144 bits).
 */
export const NEGLIGIBLE_NATS = 0.01;

/**
 * other - base over seeds: the difference of the means, its standard error
 * (sqrt(sd_a² / n_a + sd_b² / n_b)), and whether it exceeds MEASURABLE_SE standard errors.
 * With one seed each there is no spread: never measurable.
 */
export function difference(base, other) {
  const a = meanSd(base), b = meanSd(other);
  const diff = b.mean - a.mean;
  const se = Math.sqrt(a.sd ** 2 / a.n + b.sd ** 2 / b.n);
  return { diff, se, measurable: a.n > 1 && b.n > 1 && Math.abs(diff) > MEASURABLE_SE * se };
}

/**
 * What a difference (from `difference`) says, weighing its size as well as its spread: 'none' (within
 * MEASURABLE_SE standard errors), 'negligible' (beyond them, but smaller than `limit`, NEGLIGIBLE_NATS
 * in nats) or 'real'.
 * @returns {'none' | 'negligible' | 'real'}
 */
export function sizeOf(d, limit = NEGLIGIBLE_NATS) {
  if (!d.measurable) return 'none';
  return Math.abs(d.diff) < limit ? 'negligible' : 'real';
}

/** Held-out loss falling by more than this (nats) over the last fifth of training: not settled. */
export const SETTLED_NATS = 0.01;

/**
 * How much held-out loss still fell over the last fifth of training, averaged over runs: each run's
 * evaluations [[step, loss], ...] (ascending steps), from its last evaluation at or before 80 % of the
 * final step to the final one. NaN when no run has two such points.
 */
export function lateDrop(runs) {
  const drops = [];
  for (const points of runs) {
    if (points.length < 2) continue;
    const [lastStep, lastLoss] = points.at(-1);
    const before = points.filter(([s]) => s <= 0.8 * lastStep).at(-1);
    if (before && before[0] < lastStep) drops.push(before[1] - lastLoss);
  }
  return drops.length ? drops.reduce((s, x) => s + x, 0) / drops.length : NaN;
}

/** Decimals that show a spread of `x` with two significant digits: at least 3, at most 6. */
export const digitsFor = (x) => (x > 0 && Number.isFinite(x) ? Math.min(6, Math.max(3, Math.ceil(-Math.log10(x)) + 1)) : 3);

const toFixed = (x, digits) => x.toFixed(digits);

/** Mean ± sd with the decimals the sd needs: "0.046 ± 0.015", "0.002980 ± 0.000060"; `fixed` writes a number with `digits` decimals. */
export const plusMinus = ({ mean, sd }, digits = digitsFor(sd), fixed = toFixed) => `${fixed(mean, digits)} ± ${fixed(sd, digits)}`;

/** A signed difference with its standard error: "+0.046 ± 0.015". */
export const signedDiff = ({ diff, se }, digits = digitsFor(se), fixed = toFixed) => `${diff >= 0 ? '+' : '−'}${fixed(Math.abs(diff), digits)} ± ${fixed(se, digits)}`;

/** plusMinus and signedDiff with a language's numbers (i18n.fmt: its `fixed`). */
export const spreadFormat = (fmt) => ({
  plusMinus: (stat, digits) => plusMinus(stat, digits, fmt.fixed),
  signedDiff: (d, digits) => signedDiff(d, digits, fmt.fixed),
});
