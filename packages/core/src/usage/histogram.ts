/**
 * The fixed latency histogram kept in every analytics row (docs/contract.md section 4, "Usage and
 * analytics"): `LATENCY_BOUNDS_MS[i]` is the inclusive upper bound in milliseconds of bucket `i`, and a last
 * bucket holds everything slower. Bucket counts add up across instances, hours and rows, so percentiles of any
 * period are computed from the summed buckets (linear interpolation inside the bucket, as Prometheus'
 * `histogram_quantile` does).
 */

/** Upper bounds in ms; the histogram has `LATENCY_BOUNDS_MS.length + 1` buckets. */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] as const;

/** Number of buckets of every stored histogram (14). */
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** A new all-zero histogram. */
export const emptyHistogram = (): number[] => new Array<number>(LATENCY_BUCKETS).fill(0);

/** Index of the bucket that a duration of `ms` milliseconds falls in. */
export function bucketOf(ms: number): number {
  let i = 0;
  while (i < LATENCY_BOUNDS_MS.length && ms > (LATENCY_BOUNDS_MS[i] as number)) i++;
  return i;
}

/** Adds `from`'s counts into `into` (element by element; missing elements count as 0). Returns `into`. */
export function addHistogram(into: number[], from: readonly (number | null)[] | null | undefined): number[] {
  if (!from) return into;
  for (let i = 0; i < LATENCY_BUCKETS; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
  return into;
}

/**
 * The `q` quantile (0 < q < 1) in ms of the durations counted in `histogram`, rounded to 0.1 ms; null when
 * the histogram is empty. Durations in the last (open) bucket are reported as its lower bound.
 */
export function percentile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((n, c) => n + c, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < LATENCY_BUCKETS; i++) {
    const count = histogram[i] ?? 0;
    if (count > 0 && seen + count >= rank) {
      const lower = i === 0 ? 0 : (LATENCY_BOUNDS_MS[i - 1] as number);
      const upper = LATENCY_BOUNDS_MS[i];
      if (upper === undefined) return lower;
      return Math.round((lower + ((upper - lower) * (rank - seen)) / count) * 10) / 10;
    }
    seen += count;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] as number;
}
