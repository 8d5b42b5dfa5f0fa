/**
 * The worker thread of bench/steady-load.ts (plain JavaScript: a worker does not inherit the bench's tsx loader).
 * Runs loadtest with `workerData` (SteadyLoadOptions) and posts a SteadyLoadResult.
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadTest } from "loadtest";

const { url, headers, rate, seconds } = workerData;
const latenciesMs = [];
const statusCodes = {};
let errors = 0;
const started = performance.now();
await loadTest({
  url,
  headers,
  requestsPerSecond: rate,
  maxSeconds: seconds,
  agentKeepAlive: true,
  quiet: true,
  timeout: 30_000,
  statusCallback: (_error, result) => {
    if (result?.statusCode === undefined || result.requestElapsed === undefined) {
      errors++;
      return;
    }
    latenciesMs.push(result.requestElapsed);
    statusCodes[result.statusCode] = (statusCodes[result.statusCode] ?? 0) + 1;
  },
});
parentPort.postMessage({ latenciesMs, statusCodes, errors, seconds: (performance.now() - started) / 1000 });
