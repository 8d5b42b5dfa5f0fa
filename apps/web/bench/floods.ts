/**
 * `npm run bench -- --floods`: what anonymous floods leave of a real key's getPet on an instance
 * (docs/performance.md). For each flood (forged keys with valid checksums, signed-out /api/trpc calls, /metrics
 * scrapes with the token), getPet is measured alone and beside the flood in alternating rounds, and the ratio
 * of its 200s per second is reported (target: at least 50%; any other status getPet got is reported beside). Flood and key come from one address, as an attacker behind
 * the same proxy would: the flood uses up the address's anonymous budgets while the key, in use, is verified
 * from memory.
 */
import { generateApiKey } from "@petstore/core";
import autocannon from "autocannon";
import type { ProductionServer } from "../test/instances/production-server.ts";
import { round, runOnce, type Scenario, status, Tally } from "./measure.ts";
import { options } from "./options.ts";

/** A key of the staging format with a correct checksum that no database holds. */
const forgedKey = () => generateApiKey("staging");

interface Flood {
  name: string;
  options(baseUrl: string): Parameters<typeof autocannon>[0];
}

/** Distinct forged keys the flood cycles through (each connection sends them in turn). */
const FORGED_KEYS = 10_000;

const floods = (metricsToken: string): Flood[] => [
  {
    name: "forged keys",
    options: (url) => ({
      url,
      requests: Array.from({ length: FORGED_KEYS }, () => ({
        method: "GET" as const,
        path: "/v1/pets/1",
        headers: { authorization: `Bearer ${forgedKey()}` },
      })),
    }),
  },
  { name: "signed-out /api/trpc", options: (url) => ({ url: `${url}/api/trpc/auth.me` }) },
  {
    name: "/metrics with the token",
    options: (url) => ({ url: `${url}/metrics`, headers: { authorization: `Bearer ${metricsToken}` } }),
  },
];

/** What getPet got: 200s per second (a refused getPet is no service), p99 and the other statuses it got. */
interface Served {
  reqPerSec: number;
  p99Ms: number;
  otherStatuses: Record<string, number>;
}

function served(tally: Tally): Served {
  const { statusCodes, seconds, p99Ms } = tally.result();
  const { 200: ok = 0, ...otherStatuses } = statusCodes;
  return { reqPerSec: round(ok / seconds, 1), p99Ms, otherStatuses };
}

export interface FloodResult {
  flood: string;
  alone: Served;
  beside: Served;
  floodReqPerSec: number;
  floodStatuses: Record<string, number>;
  ratio: number;
}

/** Measures getPet of `key` alone and beside each flood, in alternating rounds. */
export async function measureFloods(
  server: ProductionServer,
  opts: { key: string; petId: bigint | number; metricsToken: string; log: (line: string) => void },
): Promise<FloodResult[]> {
  const getPet: Scenario = {
    name: "getPet",
    options: (url) => ({
      url: `${url}/v1/pets/${opts.petId}`,
      headers: { authorization: `Bearer ${opts.key}` },
    }),
    once: (url) =>
      status(fetch(`${url}/v1/pets/${opts.petId}`, { headers: { authorization: `Bearer ${opts.key}` } })),
  };
  const seconds = options.duration / options.rounds;
  const clientConnections = 16;
  const results: FloodResult[] = [];
  await runOnce(getPet, server, options.warmup, clientConnections);
  for (const flood of floods(opts.metricsToken)) {
    const alone = new Tally();
    const beside = new Tally();
    const floodStatuses: Record<string, number> = {};
    let floodRequests = 0;
    for (let i = 0; i < options.rounds; i++) {
      await runOnce(getPet, server, seconds, clientConnections, alone);
      // The attacker runs in a worker thread of its own: sharing the measuring client's event loop, it would
      // measure how that loop splits its time between the two, not what the server leaves the real key.
      const attack = autocannon({
        ...flood.options(server.baseUrl),
        connections: options.connections,
        duration: seconds + 1,
        workers: 1,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      await runOnce(getPet, server, seconds, clientConnections, beside);
      const attacked = await attack;
      floodRequests += attacked.requests.total;
      for (const [code, stats] of Object.entries(attacked.statusCodeStats ?? {})) {
        floodStatuses[code] = (floodStatuses[code] ?? 0) + stats.count;
      }
    }
    const a = served(alone);
    const b = served(beside);
    const result: FloodResult = {
      flood: flood.name,
      alone: a,
      beside: b,
      floodReqPerSec: round(floodRequests / (options.rounds * (seconds + 1)), 1),
      floodStatuses,
      ratio: round(b.reqPerSec / a.reqPerSec, 3),
    };
    results.push(result);
    opts.log(
      `  ${flood.name}: getPet ${a.reqPerSec} req/s alone, ${b.reqPerSec} beside the flood ` +
        `(${(result.ratio * 100).toFixed(1)}%; p99 ${a.p99Ms} -> ${b.p99Ms} ms); flood ${result.floodReqPerSec} req/s ` +
        `${JSON.stringify(floodStatuses)}` +
        (Object.keys(a.otherStatuses).length + Object.keys(b.otherStatuses).length
          ? `; getPet got besides 200s: alone ${JSON.stringify(a.otherStatuses)}, beside ${JSON.stringify(b.otherStatuses)}`
          : ""),
    );
  }
  return results;
}
