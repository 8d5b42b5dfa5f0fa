/** Reading `petstore_http_requests_total` of this process's registry in tests. */
import { getMetrics } from "../../src/server/metrics/registry.ts";

/**
 * The counter's value summed over the series whose labels include every pair of `want`.
 * @returns a count of requests (0 when no series matches, or metrics are off).
 */
export async function countRequests(want: Record<string, string>): Promise<number> {
  const values = (await getMetrics()?.requests.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(want).every(([k, x]) => String(v.labels[k as never]) === x))
    .reduce((sum, v) => sum + v.value, 0);
}
