/**
 * `npm run bench -- --floods`: what anonymous floods leave of a real key's getPet on an instance
 * (docs/performance.md). For each flood (forged keys with valid checksums, signed-out /api/trpc calls, /metrics
 * scrapes with the token), getPet is measured alone and beside the flood in alternating rounds, and the ratio
 * of its 200s per second is reported (target: at least 50%; any other status getPet got is reported beside). Flood and key come from one address, as an attacker behind
 * the same proxy would: the flood uses up the address's anonymous budgets while the key, in use, is verified
 * from memory.
 */
import { Worker } from "node:worker_threads";
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

/** getPet of animal `petId` with the API key `key`: the real client whose share of the process each flood measures. */
function getPetScenario(key: string, petId: bigint | number): Scenario {
  return {
    name: "getPet",
    options: (url) => ({ url: `${url}/v1/pets/${petId}`, headers: { authorization: `Bearer ${key}` } }),
    once: (url) => status(fetch(`${url}/v1/pets/${petId}`, { headers: { authorization: `Bearer ${key}` } })),
  };
}

/** Measures getPet of `key` alone and beside each flood, in alternating rounds. */
export async function measureFloods(
  server: ProductionServer,
  opts: { key: string; petId: bigint | number; metricsToken: string; log: (line: string) => void },
): Promise<FloodResult[]> {
  const getPet = getPetScenario(opts.key, opts.petId);
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

/** What one run of the address-flood worker (address-flood-worker.mjs) sends. */
export interface AddressFlood {
  name: string;
  request: { method: "GET" | "POST"; path: string; headers?: Record<string, string>; body?: string };
  /** Closed loop over this many connections from one address, instead of the paced flood from many. */
  connections?: number;
  /** Authorization headers the requests send in turn. */
  authorizations?: string[];
  /** Each address also sends an X-Forwarded-For address of its own outside loopback (the instance trusts loopback proxies). */
  forwardedFor?: boolean;
}

/** `count` Bearer headers of keys in the staging format with a correct checksum that no database holds. */
const unknownKeys = (count: number) => Array.from({ length: count }, () => `Bearer ${forgedKey()}`);

/** `count` Bearer headers of staging-shaped keys whose checksum is wrong (the last character changed). */
const badChecksums = (count: number) =>
  Array.from({ length: count }, () => {
    const key = forgedKey();
    return `Bearer ${key.slice(0, -1)}${key.endsWith("0") ? "1" : "0"}`;
  });

export interface AddressFloodResult {
  sent: number;
  statusCodes: Record<string, number>;
  errors: number;
  seconds: number;
}

/** `count` loopback addresses from 127.0.1.1 on (127.0.0.1 is the measuring client's). */
export const loopbackAddresses = (count: number) =>
  Array.from({ length: count }, (_, i) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`);

/** Runs `flood` (or its reference: the same shape on /healthz) in a worker thread for `seconds`. */
export function runAddressFlood(
  port: number,
  flood: AddressFlood,
  opts: { addresses: string[]; rate: number; seconds: number },
): Promise<AddressFloodResult> {
  const worker = new Worker(new URL("./address-flood-worker.mjs", import.meta.url), {
    workerData: {
      port,
      ...opts,
      connections: flood.connections,
      request: flood.request,
      authorizations: flood.authorizations,
      forwardedFor: flood.forwardedFor,
    },
  });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

export interface AddressFloodRow {
  flood: string;
  alone: Served;
  /** getPet beside the reference flood: the same addresses and rate (or connections) on /healthz. */
  besideReference: Served;
  beside: Served;
  referenceReqPerSec: number;
  referenceStatuses: Record<string, number>;
  floodReqPerSec: number;
  floodStatuses: Record<string, number>;
  floodErrors: number;
  /** beside / besideReference: the target is at least 0.5. */
  share: number;
}

/**
 * The floods from many addresses of `measureAddressFloods` (and bench/refusal-profiles.ts), for an instance at
 * `origin` (the sign-in's Origin header).
 */
export function addressFloods(origin: string): AddressFlood[] {
  return [
    { name: "signed-out /api/trpc", request: { method: "GET", path: "/api/trpc/auth.me" } },
    { name: "/docs", request: { method: "GET", path: "/docs" } },
    {
      name: "sign-in, wrong passwords",
      request: {
        method: "POST",
        path: "/api/trpc/auth.signIn",
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify({ email: "flood-{n}@flood.example", password: "not the password" }),
      },
    },
    {
      name: "forged keys, unknown (correct checksums)",
      request: { method: "GET", path: "/v1/pets/1" },
      authorizations: unknownKeys(FORGED_KEYS),
    },
    {
      name: "forged keys, bad checksums",
      request: { method: "GET", path: "/v1/pets/1" },
      authorizations: badChecksums(FORGED_KEYS),
    },
    {
      name: "/metrics without a token, from outside loopback",
      request: { method: "GET", path: "/metrics" },
      forwardedFor: true,
    },
    {
      name: "/metrics without a token, from loopback",
      request: { method: "GET", path: "/metrics" },
    },
    {
      name: "dot segments, 64 connections from one address",
      request: { method: "GET", path: "/_next/../docs" },
      connections: 64,
    },
  ];
}

/**
 * `npm run bench -- --floods --address-floods`: a real key's getPet (16 connections from 127.0.0.1) alone,
 * beside a reference flood and beside each dashboard flood, in alternating rounds, on an instance that serves
 * both (role `all`, TRUST_PROXY `loopback`: each socket address is a client, or the X-Forwarded-For address it
 * sends). The floods: `addresses` loopback addresses at `rate` requests a second in all on signed-out /api/trpc,
 * on /docs, on sign-in with wrong passwords (a new unknown email each time), on getPet with forged keys (unknown
 * keys with correct checksums, and keys with bad checksums; a new key each request), and on /metrics without a
 * token (from addresses outside loopback, as through a proxy, and from the loopback addresses themselves), each
 * against the same flood on /healthz; and 64 connections from one address sending dot-segment paths
 * (`/_next/../docs`), against 64 connections on /healthz.
 */
export async function measureAddressFloods(
  server: ProductionServer,
  opts: {
    key: string;
    petId: bigint | number;
    addresses: number;
    rate: number;
    log: (line: string) => void;
  },
): Promise<AddressFloodRow[]> {
  const getPet = getPetScenario(opts.key, opts.petId);
  const port = Number(new URL(server.baseUrl).port);
  const origin = `http://127.0.0.1:${port}`;
  const addresses = loopbackAddresses(opts.addresses);
  const floods = addressFloods(origin);
  const seconds = options.duration / options.rounds;
  const clientConnections = 16;
  const rows: AddressFloodRow[] = [];
  await runOnce(getPet, server, options.warmup, clientConnections);
  // Next loads and compiles a route's modules on its first request: each flood's route is warmed here, so that
  // no flood's figures include a start-up cost that an attacker meets once.
  for (const flood of floods) {
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${origin}${flood.request.path.replace("/_next/../", "/")}`, {
        method: flood.request.method,
        headers: flood.request.headers ?? {},
        ...(flood.request.body ? { body: flood.request.body.replaceAll("{n}", `warm-${i}`) } : {}),
      });
      await r.arrayBuffer();
    }
  }
  for (const flood of floods.filter((f) => !options.only || f.name.includes(options.only))) {
    const reference: AddressFlood = { ...flood, request: { method: "GET", path: "/healthz" } };
    const tallies = { alone: new Tally(), reference: new Tally(), flood: new Tally() };
    const totals = {
      reference: { sent: 0, seconds: 0, statusCodes: {} as Record<string, number>, errors: 0 },
      flood: { sent: 0, seconds: 0, statusCodes: {} as Record<string, number>, errors: 0 },
    };
    for (let i = 0; i < options.rounds; i++) {
      await runOnce(getPet, server, seconds, clientConnections, tallies.alone);
      for (const kind of ["reference", "flood"] as const) {
        const attack = runAddressFlood(port, kind === "flood" ? flood : reference, {
          addresses: flood.connections ? addresses.slice(0, 1) : addresses,
          rate: opts.rate,
          seconds: seconds + 1,
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        await runOnce(getPet, server, seconds, clientConnections, tallies[kind]);
        const r = await attack;
        const total = totals[kind];
        total.sent += r.sent;
        total.seconds += r.seconds;
        total.errors += r.errors;
        for (const [code, n] of Object.entries(r.statusCodes))
          total.statusCodes[code] = (total.statusCodes[code] ?? 0) + n;
      }
    }
    const [alone, besideReference, beside] = [tallies.alone, tallies.reference, tallies.flood].map(
      served,
    ) as [Served, Served, Served];
    const row: AddressFloodRow = {
      flood: flood.name,
      alone,
      besideReference,
      beside,
      referenceReqPerSec: round(totals.reference.sent / totals.reference.seconds, 1),
      referenceStatuses: totals.reference.statusCodes,
      floodReqPerSec: round(totals.flood.sent / totals.flood.seconds, 1),
      floodStatuses: totals.flood.statusCodes,
      floodErrors: totals.flood.errors,
      share: round(beside.reqPerSec / besideReference.reqPerSec, 3),
    };
    rows.push(row);
    const others = [alone, besideReference, beside].map((x) => JSON.stringify(x.otherStatuses));
    opts.log(
      `  ${flood.name}: getPet ${alone.reqPerSec} req/s alone, ${besideReference.reqPerSec} beside /healthz ` +
        `(${row.referenceReqPerSec} req/s ${JSON.stringify(row.referenceStatuses)}), ${beside.reqPerSec} beside the flood ` +
        `(${(row.share * 100).toFixed(1)}% of the reference; p99 ${alone.p99Ms} / ${besideReference.p99Ms} / ${beside.p99Ms} ms); ` +
        `flood ${row.floodReqPerSec} req/s ${JSON.stringify(row.floodStatuses)}, ${row.floodErrors} errors; ` +
        `getPet's other statuses ${others.join(" / ")}`,
    );
  }
  return rows;
}
