/**
 * A steady, open-loop load for latency figures (`npm run bench:dashboard`): loadtest's `requestsPerSecond` sends one
 * request every `1 / rate` s on a timer, whether or not earlier ones have been answered (a new keep-alive
 * connection is opened when every connection is busy), so a slow answer never delays the next request's start
 * and the latencies are those of evenly spaced clients. autocannon's `overallRate` is not that: each connection
 * sends its share of a second back to back when the second begins, so its latencies measure how fast a burst of
 * `rate` requests drains.
 *
 * The load runs in a worker thread of its own (steady-load-worker.mjs), so that whatever else the bench process
 * does meanwhile (a simulated admin reading dashboard pages) never delays a measurement.
 */
import { Worker } from "node:worker_threads";

export interface SteadyLoadOptions {
  url: string;
  headers: Record<string, string>;
  /** Requests per second. */
  rate: number;
  seconds: number;
}

export interface SteadyLoadResult {
  /** Request-sent to last-byte latency of every answered request, in whole ms (loadtest's resolution). */
  latenciesMs: number[];
  statusCodes: Record<string, number>;
  /** Requests that got no HTTP answer (connection errors, timeouts). */
  errors: number;
  seconds: number;
}

/**
 * Sends `rate` evenly spaced requests a second to `url` for `seconds`, from a worker thread.
 * @returns every answered request's latency and status; rejects when the worker fails.
 */
export function steadyLoad(options: SteadyLoadOptions): Promise<SteadyLoadResult> {
  const worker = new Worker(new URL("./steady-load-worker.mjs", import.meta.url), { workerData: options });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`steady-load worker exited with code ${code}`)));
  });
}
