/**
 * `npm run bench`: throughput and latency of the production server (`tsx server.ts` over the Next build, with
 * PostgreSQL and Redis) with the rate limiter on and off, measured in one run so that the limiter's cost is a
 * ratio (target: under 15% of throughput, at most one Redis round trip per admitted request).
 *
 * Two servers run at once on one temporary PostgreSQL database: one with REDIS_URL (limiter on, a key prefix of
 * its own, deleted afterwards) and one with RATE_LIMIT_ENABLED=false. For each scenario the two are measured in
 * alternating rounds (on/off, off/on, ...) after a short warm-up each, so that drifting background load hits
 * both alike, and in two phases with the servers' start order swapped. Latency percentiles are exact over every
 * response. The key is Enterprise with limits so high that nothing is denied, yet every request goes through
 * the limiter; ANONYMOUS_PER_MINUTE is raised likewise. Redis commands per request: INFO commandstats around
 * exactly 300 requests per scenario (net of what other Redis users send meanwhile, measured on the off server).
 *
 * Options, as arguments of bench/run.ts or in the environment (`BENCH_DURATION=5 npm run bench`; npm keeps
 * `npm run bench -- --x` for itself): --duration=<s> per scenario and server (BENCH_DURATION, default 10),
 * --rounds=<n> alternating runs per phase (BENCH_ROUNDS, default 4, rounded up to even),
 * --connections=<n> (BENCH_CONNECTIONS, default 20), --warmup=<s> (BENCH_WARMUP, default 2); --control
 * (BENCH_CONTROL=1) runs both servers with the limiter off: an A/A run showing how far apart two identical
 * servers measure on this machine; --metrics (BENCH_METRICS=1) runs both with the limiter on and the 'off'
 * server with METRICS_ENABLED=false: the ratio is then the cost of recording metrics (target: at most 3%).
 * Needs PostgreSQL at 127.0.0.1:5432 and Redis at REDIS_URL (default redis://127.0.0.1:6379).
 * Writes bench-results/latest.json (git-ignored).
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import {
  ensureBuild,
  freePort,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startProductionServer,
  WEB_DIR,
} from "../test/instances/production-server.ts";

const option = (name: string, env: string, fallback: number): number => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = Number(arg?.split("=")[1] ?? process.env[env] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
};
const DURATION = option("duration", "BENCH_DURATION", 10);
const CONNECTIONS = option("connections", "BENCH_CONNECTIONS", 20);
const WARMUP = option("warmup", "BENCH_WARMUP", 2);
// An even number of rounds, so that each server goes first equally often (cancels a linear load drift).
const ROUNDS = 2 * Math.ceil(option("rounds", "BENCH_ROUNDS", 4) / 2);
const PROBE_REQUESTS = 300;
const CONTROL = process.argv.includes("--control") || Boolean(process.env.BENCH_CONTROL);
const METRICS = process.argv.includes("--metrics") || Boolean(process.env.BENCH_METRICS);
const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const PREFIX = `petstore-bench:${process.pid}:${randomUUID().slice(0, 8)}`;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Sends one command to Redis over RESP and returns the reply (simple, bulk or integer) as text. */
async function redisCommand(url: string, ...args: string[]): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port || 6379), hostname || "127.0.0.1");
  const request = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;
  return new Promise<string>((resolve, reject) => {
    let data = Buffer.alloc(0);
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString();
      const type = text[0];
      const eol = text.indexOf("\r\n");
      if (eol < 0) return;
      if (type === "$") {
        const length = Number(text.slice(1, eol));
        const body = data.subarray(Buffer.byteLength(text.slice(0, eol + 2)));
        if (body.length < length + 2) return;
        resolve(body.subarray(0, length).toString());
      } else if (type === "-") reject(new Error(text.slice(1, eol)));
      else resolve(text.slice(1, eol));
      socket.end();
    });
    socket.write(request);
  });
}

/** Commands a client sends itself (commandstats also counts the commands scripts run, e.g. INCRBY). */
const CLIENT_COMMANDS = new Set(["get", "set", "del", "evalsha", "eval", "ping", "script", "mget", "exists"]);

/** Calls per client command from INFO commandstats. */
async function commandCalls(): Promise<Record<string, number>> {
  const text = await redisCommand(REDIS_URL, "INFO", "commandstats");
  const calls: Record<string, number> = {};
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (CLIENT_COMMANDS.has(m[1] as string)) calls[m[1] as string] = Number(m[2]);
  }
  return calls;
}

function addDelta(
  into: Record<string, number>,
  before: Record<string, number>,
  after: Record<string, number>,
): void {
  for (const [cmd, n] of Object.entries(after)) {
    const diff = n - (before[cmd] ?? 0);
    if (diff > 0) into[cmd] = (into[cmd] ?? 0) + diff;
  }
}

interface Scenario {
  name: string;
  /** Builds the autocannon options for a server. */
  options(baseUrl: string): Parameters<typeof autocannon>[0];
  /** Sends one such request (fetch) and returns its status. */
  once(baseUrl: string): Promise<number>;
}

interface Measurement {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  seconds: number;
  statusCodes: Record<string, number>;
  errors: number;
}

/** Accumulates the rounds of one scenario on one server. */
class Tally {
  latencies: number[] = [];
  statusCodes: Record<string, number> = {};
  seconds = 0;
  errors = 0;

  result(): Measurement {
    const sorted = Float64Array.from(this.latencies).sort();
    const pct = (p: number) =>
      round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0, 1);
    const requests = sorted.length;
    return {
      reqPerSec: round(requests / this.seconds, 1),
      p50Ms: pct(50),
      p99Ms: pct(99),
      requests,
      seconds: round(this.seconds, 2),
      statusCodes: this.statusCodes,
      errors: this.errors,
    };
  }
}

/** One timed run of `scenario` against `server`, added to `tally`. */
async function runOnce(
  scenario: Scenario,
  server: ProductionServer,
  seconds: number,
  tally?: Tally,
): Promise<void> {
  const instance = autocannon({
    ...scenario.options(server.baseUrl),
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (tally) {
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      tally.latencies.push(responseTime);
      tally.statusCodes[statusCode] = (tally.statusCodes[statusCode] ?? 0) + 1;
    });
  }
  const r = await instance;
  if (!tally) return;
  tally.seconds += r.duration;
  tally.errors += r.errors + r.timeouts;
}

interface RedisUse {
  /** Client commands per request with the limiter on, net of what other Redis users sent meanwhile. */
  commandsPerRequest: number;
  /** The same by command (gross, before subtracting other users). */
  byCommand: Record<string, number>;
  probeRequests: number;
}

/**
 * Redis commands per request: exactly PROBE_REQUESTS requests (10 at a time) against each server, with INFO
 * commandstats read around each batch; the limiter-off batch measures other Redis users' rate, subtracted.
 */
async function probeRedis(
  scenario: Scenario,
  on: ProductionServer,
  off: ProductionServer,
): Promise<RedisUse> {
  const batch = async (server: ProductionServer) => {
    const before = await commandCalls();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < PROBE_REQUESTS) {
          next++;
          await scenario.once(server.baseUrl);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const counts: Record<string, number> = {};
    addDelta(counts, before, await commandCalls());
    return { counts, seconds };
  };
  const quiet = await batch(off);
  const loaded = await batch(on);
  const noise = (sum(quiet.counts) / quiet.seconds) * loaded.seconds;
  return {
    commandsPerRequest: round((sum(loaded.counts) - noise) / PROBE_REQUESTS, 2),
    byCommand: Object.fromEntries(
      Object.entries(loaded.counts).map(([cmd, n]) => [cmd, round(n / PROBE_REQUESTS, 3)]),
    ),
    probeRequests: PROBE_REQUESTS,
  };
}

/**
 * Measures `scenario` on both servers into the tallies: a warm-up on each, then ROUNDS alternating runs
 * (on/off, off/on, ...) of `seconds / ROUNDS` each, so that background load drifting meanwhile hits both alike.
 */
async function measurePair(
  scenario: Scenario,
  on: ProductionServer,
  off: ProductionServer,
  tallies: { on: Tally; off: Tally },
  seconds: number,
): Promise<void> {
  await runOnce(scenario, on, WARMUP);
  await runOnce(scenario, off, WARMUP);
  for (let i = 0; i < ROUNDS; i++) {
    const order: Array<[ProductionServer, Tally]> = [
      [on, tallies.on],
      [off, tallies.off],
    ];
    if (i % 2 === 1) order.reverse();
    for (const [server, tally] of order) await runOnce(scenario, server, seconds / ROUNDS, tally);
  }
}

/** The status of a response, its body read and dropped. */
async function status(response: Promise<Response>): Promise<number> {
  const r = await response;
  await r.arrayBuffer();
  return r.status;
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

async function main(): Promise<void> {
  if (await ensureBuild(log)) log("built.");
  log(`Preparing a temporary PostgreSQL database ...`);
  const db: PreparedDatabase = await prepareDatabase("petstore_bench");
  const servers: ProductionServer[] = [];
  try {
    const { key } = await db.rt.apiKeys.create(
      { name: "bench", plan: "enterprise", perMinute: 100_000_000, perDay: 100_000_000 },
      "bench",
    );
    const pet = await db.rt.db.prisma.pet.findFirstOrThrow({ orderBy: { id: "asc" } });
    const category = await db.rt.db.prisma.category.findFirstOrThrow({ orderBy: { id: "asc" } });
    const auth = { authorization: `Bearer ${key}` };
    let serial = 0;
    const newPet = () =>
      JSON.stringify({ name: `bench ${process.pid} ${++serial}`, categoryId: Number(category.id) });
    const scenarios: Scenario[] = [
      {
        name: "GET /v1/pets?limit=20",
        options: (url) => ({ url: `${url}/v1/pets?limit=20`, headers: auth }),
        once: (url) => status(fetch(`${url}/v1/pets?limit=20`, { headers: auth })),
      },
      {
        name: "GET /v1/pets/{id}",
        options: (url) => ({ url: `${url}/v1/pets/${pet.id}`, headers: auth }),
        once: (url) => status(fetch(`${url}/v1/pets/${pet.id}`, { headers: auth })),
      },
      {
        name: "POST /v1/pets",
        options: (url) => ({
          url,
          requests: [
            {
              method: "POST",
              path: "/v1/pets",
              headers: { ...auth, "content-type": "application/json" },
              setupRequest: (request) => ({ ...request, body: newPet() }),
            },
          ],
        }),
        once: (url) =>
          status(
            fetch(`${url}/v1/pets`, {
              method: "POST",
              headers: { ...auth, "content-type": "application/json" },
              body: newPet(),
            }),
          ),
      },
      {
        name: "GET /v1/pets (no key, 401)",
        options: (url) => ({ url: `${url}/v1/pets?limit=20` }),
        once: (url) => status(fetch(`${url}/v1/pets?limit=20`)),
      },
    ];

    const common = {
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: "https://api.bench.example",
      ANONYMOUS_PER_MINUTE: "100000000",
    };
    const loadAtStart = os.loadavg();
    const limiterOn = CONTROL
      ? { ...common, RATE_LIMIT_ENABLED: "false" }
      : { ...common, REDIS_URL, RATE_LIMIT_PREFIX: PREFIX };
    const limiterOff = METRICS
      ? { ...limiterOn, METRICS_ENABLED: "false" }
      : { ...common, RATE_LIMIT_ENABLED: "false" };
    if (METRICS)
      log("Metrics run (--metrics): 'on' records metrics, 'off' has METRICS_ENABLED=false; both limit.");
    if (CONTROL) log("Control run (--control): the 'on' server runs with the limiter off too.");
    log(
      `Each scenario, per server: ${WARMUP} s warm-up, then ${DURATION} s in ${ROUNDS} alternating rounds, ` +
        `${CONNECTIONS} connections; in two phases with the servers' start order swapped. ` +
        `Load average at start: ${loadAverage()}\n`,
    );
    const tallies = scenarios.map(() => ({ on: new Tally(), off: new Tally() }));
    const redisUse: RedisUse[] = [];
    // Two phases with the start order swapped: a server started first or second may be faster for reasons of
    // its own (seen in A/A runs with --control); each mode gets half of its time in either position.
    for (const phase of [1, 2]) {
      const [portA, portB] = await Promise.all([freePort(), freePort()]);
      log(
        `Phase ${phase}: starting the production server twice (limiter ${phase === 1 ? "on, then off" : "off, then on"}) ...`,
      );
      const first = phase === 1 ? limiterOn : limiterOff;
      const second = phase === 1 ? limiterOff : limiterOn;
      const started = await Promise.allSettled([startProductionServer(portA, first)]);
      started.push(...(await Promise.allSettled([startProductionServer(portB, second)])));
      for (const s of started) if (s.status === "fulfilled") servers.push(s.value);
      const failed = started.find((s) => s.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const [a, b] = servers.slice(-2) as [ProductionServer, ProductionServer];
      const [on, off] = phase === 1 ? [a, b] : [b, a];
      for (const [i, scenario] of scenarios.entries()) {
        await measurePair(scenario, on, off, tallies[i] as { on: Tally; off: Tally }, DURATION / 2);
        if (phase === 1) redisUse.push(await probeRedis(scenario, on, off));
        log(`  ${scenario.name}: done`);
      }
      await Promise.all(servers.splice(0).map((s) => s.stop()));
    }

    const results = scenarios.map((scenario, i) => {
      const mOn = tallies[i]?.on.result() as Measurement;
      const mOff = tallies[i]?.off.result() as Measurement;
      return {
        scenario: scenario.name,
        on: mOn,
        off: mOff,
        throughputRatio: round(mOn.reqPerSec / mOff.reqPerSec, 3),
        redis: redisUse[i] as RedisUse,
      };
    });

    const rows = results.map(({ scenario, on: a, off: b, throughputRatio, redis }) => {
      return [
        scenario,
        String(a.reqPerSec),
        String(a.p50Ms),
        String(a.p99Ms),
        String(b.reqPerSec),
        String(b.p50Ms),
        String(b.p99Ms),
        `${(throughputRatio * 100).toFixed(1)}%`,
        `${redis.commandsPerRequest} (${Object.entries(redis.byCommand)
          .map(([c, n]) => `${c} ${n}`)
          .join(", ")})`,
        Object.entries(a.statusCodes)
          .map(([c, n]) => `${c}×${n}`)
          .join(" "),
      ];
    });
    const header = [
      "scenario",
      "on req/s",
      "on p50",
      "on p99",
      "off req/s",
      "off p50",
      "off p99",
      "on/off",
      "Redis cmds/req (on)",
      "statuses (on)",
    ];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join(" | ");
    log("");
    log(line(header));
    log(widths.map((w) => "-".repeat(w)).join("-|-"));
    for (const r of rows) log(line(r));
    const worst = Math.min(...results.map((r) => r.throughputRatio));
    log(
      `\nLimiter cost: worst throughput ratio ${(worst * 100).toFixed(1)}% (target: cost < 15%, i.e. ratio > 85%). ` +
        `Latencies in ms. Load average at end: ${loadAverage()}.\n` +
        `Redis: client commands per request over ${PROBE_REQUESTS} requests with the limiter on, net of what ` +
        "other Redis users sent meanwhile (gross, by command, in brackets). An admitted keyed request sends\n" +
        "GET (ban) + 2 EVALSHA (minute, day) at once, answered in one round trip; an anonymous one a single EVALSHA.",
    );

    const out = path.join(WEB_DIR, "bench-results", "latest.json");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(
      out,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          cpus: os.cpus().length,
          loadAverageAtStart: loadAtStart,
          loadAverageAtEnd: os.loadavg(),
          durationSeconds: DURATION,
          warmupSeconds: WARMUP,
          rounds: ROUNDS,
          control: CONTROL,
          metrics: METRICS,
          connections: CONNECTIONS,
          results,
          worstThroughputRatio: worst,
        },
        null,
        2,
      )}\n`,
    );
    log(`Results written to ${path.relative(process.cwd(), out)}`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await db.drop();
    await deletePrefix(PREFIX);
  }
}

/** Deletes the benchmark's Redis keys (SCAN + DEL). */
async function deletePrefix(prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const reply = await redisScan(cursor, `${prefix}*`);
    cursor = reply.cursor;
    if (reply.keys.length > 0) await redisCommand(REDIS_URL, "DEL", ...reply.keys);
  } while (cursor !== "0");
}

/** SCAN with MATCH, parsing the two-element array reply. */
async function redisScan(cursor: string, match: string): Promise<{ cursor: string; keys: string[] }> {
  const { hostname, port } = new URL(REDIS_URL);
  const socket = net.connect(Number(port || 6379), hostname || "127.0.0.1");
  const args = ["SCAN", cursor, "MATCH", match, "COUNT", "1000"];
  socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`);
  let text = "";
  for await (const chunk of socket) {
    text += chunk.toString();
    const lines = text.split("\r\n");
    // *2, $n, cursor, *k, then k pairs of $n / key.
    const count = Number(lines[3]?.slice(1));
    if (lines.length >= 4 && Number.isFinite(count) && lines.length >= 5 + 2 * count) {
      socket.end();
      const keys = Array.from({ length: count }, (_, i) => lines[5 + 2 * i] as string);
      return { cursor: lines[2] as string, keys };
    }
  }
  throw new Error("SCAN: connection closed early");
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
