/**
 * `npm run bench:webhooks`: what webhooks cost createPet and how fast they arrive (docs/contract.md section 6),
 * on the production server (`node dist/server.js`) with PostgreSQL and Redis. What it measures, its options
 * (bench/options.ts) and its output: docs/performance.md "How to reproduce". BENCH_PROFILE=<dir> profiles the
 * server with the endpoint (`node --cpu-prof`; summarise with bench/profile.ts).
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  SERVER_BUNDLE,
  startProductionServer,
  WEB_DIR,
} from "../test/instances/production-server.ts";
import { freePort } from "../test/support/common.ts";
import {
  cpuMs,
  loadAverage,
  type Measurement,
  round,
  runOnce,
  type Scenario,
  serverLog,
  status,
  Tally,
} from "./measure.ts";
import { options } from "./options.ts";
import { deletePrefix } from "./redis.ts";

const {
  duration: DURATION,
  connections: CONNECTIONS,
  warmup: WARMUP,
  rounds: ROUNDS,
  redisUrl: REDIS_URL,
} = options;
const { webhookRate: RATE, webhookSeconds: STEADY_SECONDS } = options;
const PREFIX = `petstore-bench-webhooks:${process.pid}:${randomUUID().slice(0, 8)}`;
/** Longest wait for the deliveries of one round. */
const DRAIN_TIMEOUT_MS = 120_000;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** The receiver child and its messages. */
interface Sink {
  port: number;
  reset(): void;
  report(): Promise<{ deliveries: number; distinct: number; latencies: number[] }>;
  close(): void;
}

async function startSink(): Promise<Sink> {
  const child: ChildProcess = fork(path.join(import.meta.dirname, "webhook-sink.ts"), {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port));
    child.once("exit", (code) => reject(new Error(`the webhook receiver exited (${code})`)));
  });
  return {
    port,
    reset: () => child.send({ reset: true }),
    report: () =>
      new Promise((resolve) => {
        child.once("message", resolve as (m: unknown) => void);
        child.send({ report: true });
      }),
    close: () => child.kill(),
  };
}

/** createPet against whichever server, with that server's key and category. */
function createPet(keys: Map<string, string>): Scenario {
  let serial = 0;
  const body = () => JSON.stringify({ name: `bench ${process.pid} ${++serial}`, categoryId: 1 });
  const headers = (url: string) => ({
    authorization: `Bearer ${keys.get(url)}`,
    "content-type": "application/json",
  });
  return {
    name: "POST /v1/pets",
    options: (url) => ({
      url,
      requests: [
        {
          method: "POST",
          path: "/v1/pets",
          headers: headers(url),
          setupRequest: (r) => ({ ...r, body: body() }),
        },
      ],
    }),
    once: (url) => status(fetch(`${url}/v1/pets`, { method: "POST", headers: headers(url), body: body() })),
  };
}

/** Waits until `rt`'s database has no pending delivery; returns how long that took (ms). */
async function drain(rt: Runtime): Promise<number> {
  const started = performance.now();
  while ((await rt.webhooks.queueStats()).pending > 0) {
    if (performance.now() - started > DRAIN_TIMEOUT_MS)
      throw new Error("deliveries did not drain within 2 minutes");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return performance.now() - started;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

async function main(): Promise<void> {
  if (await ensureBuild(log)) log("built.");
  log("Preparing two temporary PostgreSQL databases and the receiver ...");
  const dbs: PreparedDatabase[] = [];
  const servers: ProductionServer[] = [];
  let sink: Sink | undefined;
  let rt: Runtime | undefined;
  try {
    dbs.push(await prepareDatabase("petstore_bench_hooks"), await prepareDatabase("petstore_bench_nohooks"));
    const [withDb, withoutDb] = dbs as [PreparedDatabase, PreparedDatabase];
    sink = await startSink();
    rt = await openRuntime({
      config: loadConfig({
        DATABASE_URL: withDb.url,
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
        LOG_LEVEL: "silent",
      }),
      logger: createLogger("silent"),
    });
    await rt.webhooks.create(
      { url: `http://127.0.0.1:${sink.port}/bench`, eventTypes: ["pet.created"], description: "bench" },
      "bench",
    );
    const limits = {
      name: "bench",
      plan: "enterprise" as const,
      perMinute: 100_000_000,
      perDay: 100_000_000,
    };
    const keyWith = (await rt.apiKeys.create(limits, "bench")).key;
    const keyWithout = (await withoutDb.rt.apiKeys.create(limits, "bench")).key;
    const common = {
      PUBLIC_BASE_URL: "https://api.bench.example",
      ANONYMOUS_PER_MINUTE: "100000000",
      LOG_LEVEL: options.logLevel,
      REDIS_URL,
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
    };
    const loadAtStart = os.loadavg();
    log("Starting the server with one subscribed endpoint and the one without ...");
    const [portWith, portWithout] = [await freePort(), await freePort()];
    const withHooks = await startProductionServer(
      portWith,
      { ...common, DATABASE_URL: withDb.url, RATE_LIMIT_PREFIX: `${PREFIX}:with` },
      90_000,
      SERVER_BUNDLE,
      options.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(options.profileDir)}`] : [],
      serverLog("webhooks-with"),
    );
    servers.push(withHooks);
    const withoutHooks = await startProductionServer(
      portWithout,
      { ...common, DATABASE_URL: withoutDb.url, RATE_LIMIT_PREFIX: `${PREFIX}:without` },
      90_000,
      SERVER_BUNDLE,
      [],
      serverLog("webhooks-without"),
    );
    servers.push(withoutHooks);
    const scenario = createPet(
      new Map([
        [withHooks.baseUrl, keyWith],
        [withoutHooks.baseUrl, keyWithout],
      ]),
    );
    log(
      `createPet, per server: ${WARMUP} s warm-up, then ${DURATION} s in ${ROUNDS} alternating rounds, ` +
        `${CONNECTIONS} connections; the deliveries of each "with" round drain before the next round. ` +
        `Load average at start: ${loadAverage()}`,
    );
    const tallies = [new Tally(), new Tally()];
    let drainMs = 0;
    let drainCpuMs = 0;
    for (const target of [withHooks, withoutHooks]) await runOnce(scenario, target, WARMUP, CONNECTIONS);
    await drain(rt);
    sink.reset();
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) {
        const target = k === 0 ? withHooks : withoutHooks;
        await runOnce(scenario, target, DURATION / ROUNDS, CONNECTIONS, tallies[k]);
        if (k === 0) {
          const before = cpuMs(withHooks.pid);
          drainMs += await drain(rt);
          drainCpuMs += cpuMs(withHooks.pid) - before;
        }
      }
    }
    const [withResult, withoutResult] = tallies.map((t) => t.result()) as [Measurement, Measurement];
    const created = withResult.statusCodes["201"] ?? 0;
    const delivered = await sink.report();
    const cpuWith = round(
      (withResult.cpuMsPerRequest * withResult.requests + drainCpuMs) / Math.max(1, withResult.requests),
      3,
    );

    log(`Steady rate: ${RATE} creates/s for ${STEADY_SECONDS} s against the server with the endpoint ...`);
    sink.reset();
    const sent: Promise<number>[] = [];
    const steadyStart = performance.now();
    await new Promise<void>((resolve) => {
      const total = Math.round(RATE * STEADY_SECONDS);
      const tick = setInterval(() => {
        // Open loop: as many requests as the elapsed time calls for, whatever the answers take.
        const due = Math.min(total, Math.floor(((performance.now() - steadyStart) / 1000) * RATE));
        while (sent.length < due) sent.push(scenario.once(withHooks.baseUrl));
        if (sent.length >= total) {
          clearInterval(tick);
          resolve();
        }
      }, 5);
    });
    const statuses = await Promise.all(sent);
    const steadyCreated = statuses.filter((s) => s === 201).length;
    await drain(rt);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const steady = await sink.report();
    const sorted = steady.latencies.slice().sort((x, y) => x - y);
    const latency = {
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? Number.NaN,
    };

    const ratio = withResult.reqPerSec / withoutResult.reqPerSec;
    log("");
    log(`createPet              | req/s   | p50 ms | p99 ms | CPU ms per animal`);
    log(
      `with one endpoint      | ${withResult.reqPerSec} | ${withResult.p50Ms} | ${withResult.p99Ms} | ${cpuWith} (webhook delivery included)`,
    );
    log(
      `without webhooks       | ${withoutResult.reqPerSec} | ${withoutResult.p50Ms} | ${withoutResult.p99Ms} | ${withoutResult.cpuMsPerRequest}`,
    );
    log(
      `with/without: ${(ratio * 100).toFixed(1)}% of the req/s (target >= 90%). ${created} animals created with the ` +
        `endpoint in the measured rounds; ${delivered.deliveries} deliveries (${delivered.distinct} distinct webhook-ids); ` +
        `drains took ${round(drainMs / 1000, 1)} s in all.`,
    );
    log(
      `Commit to delivery at ${RATE}/s (${steadyCreated} of ${sent.length} created, ${steady.deliveries} delivered, ` +
        `${steady.distinct} distinct): p50 ${latency.p50Ms} ms, p95 ${latency.p95Ms} ms (target < 1000), p99 ${latency.p99Ms} ms, max ${latency.maxMs} ms.`,
    );
    log(`Load average at end: ${loadAverage()}.`);
    const out = path.join(WEB_DIR, "bench-results", "webhooks.json");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(
      out,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model,
          loadAverageAtStart: loadAtStart,
          loadAverageAtEnd: os.loadavg(),
          durationSeconds: DURATION,
          rounds: ROUNDS,
          connections: CONNECTIONS,
          createPet: {
            withEndpoint: { ...withResult, cpuMsPerAnimalWithDelivery: cpuWith },
            withoutWebhooks: withoutResult,
            ratio: round(ratio, 3),
            created,
            deliveries: delivered.deliveries,
            distinctDeliveries: delivered.distinct,
            drainSeconds: round(drainMs / 1000, 1),
          },
          steady: {
            rate: RATE,
            seconds: STEADY_SECONDS,
            sent: sent.length,
            created: steadyCreated,
            deliveries: steady.deliveries,
            distinctDeliveries: steady.distinct,
            ...latency,
          },
        },
        null,
        2,
      )}\n`,
    );
    log(`Results written to ${path.relative(process.cwd(), out)}`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    sink?.close();
    await rt?.close();
    for (const db of dbs) await db.drop();
    await deletePrefix(PREFIX);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
