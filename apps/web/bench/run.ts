/**
 * `npm run bench`: throughput and latency of the production server (`tsx server.ts` over the Next build, with
 * PostgreSQL and Redis) beside a bare reference server (bench/reference.ts: node:http + pg + ioredis doing
 * the same work and nothing else), and the project with its rate limiter on and off, measured in one run.
 *
 * Three servers run at once on one temporary PostgreSQL database: the project with REDIS_URL (limiter on, a key
 * prefix of its own, deleted afterwards), the reference (same Redis, same prefix), and the project with
 * RATE_LIMIT_ENABLED=false. For each scenario (bench/scenarios.ts) the three are measured in rotating rounds
 * after a short warm-up each, so that drifting background load hits all alike. Latency percentiles are exact
 * over every response. The key is Enterprise with limits so high that nothing is denied, yet every request
 * goes through the limiter; ANONYMOUS_PER_MINUTE is raised likewise. The project logs at LOG_LEVEL=info (one
 * line per request, as in production; BENCH_LOG_LEVEL to change). Reported: req/s, p50/p99 in ms, the
 * project/reference ratios (issue 7: >= 60% of the reference's req/s), the limiter's cost (on/off), CPU time per
 * response of each server (user + system of its process tree: on a shared machine the least distorted figure),
 * Redis commands per request, RSS of each serving process after the run, and the load average.
 *
 * Options, as arguments or in the environment (`BENCH_DURATION=5 npm run bench`): --duration=<s> per scenario
 * and server (BENCH_DURATION, default 12), --rounds=<n> (BENCH_ROUNDS, default 3), --connections=<n>
 * (BENCH_CONNECTIONS, default 64), --warmup=<s> (BENCH_WARMUP, default 2). BENCH_PROFILE=<dir> starts the
 * limiter-on project server with `node --cpu-prof` writing into <dir> (summarise with bench/profile.ts).
 * Needs PostgreSQL at 127.0.0.1:5432 and Redis at REDIS_URL (default redis://127.0.0.1:6379). Writes
 * bench-results/latest.json (git-ignored). --metrics (BENCH_METRICS=1): the third server keeps the limiter and turns
 * metrics off (METRICS_ENABLED=false), so its column measures the cost of /metrics recording instead;
 * --analytics (BENCH_ANALYTICS=1) turns usage analytics off instead (ANALYTICS_ENABLED=false): the "limiter off"
 * column is then analytics off and on/off the cost of analytics.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { databaseOf } from "@petstore/core/testing";
import {
  ensureBuild,
  freePort,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startProductionServer,
  WEB_DIR,
} from "../test/instances/production-server.ts";
import {
  loadAverage,
  type Measurement,
  measureRounds,
  probeRedis,
  type RedisUse,
  round,
  rssMb,
  Tally,
} from "./measure.ts";
import { options } from "./options.ts";
import { deletePrefix } from "./redis.ts";
import { scenarios as benchScenarios } from "./scenarios.ts";

const { duration: DURATION, connections: CONNECTIONS, warmup: WARMUP, rounds: ROUNDS } = options;
const { profileDir: PROFILE_DIR, redisUrl: REDIS_URL } = options;
// --metrics: the third server keeps its limiter on and runs with METRICS_ENABLED=false, so its column is the cost
// of recording metrics (target: at most 3%) instead of the limiter's. --analytics: likewise with
// ANALYTICS_ENABLED=false, the cost of usage analytics (target <= 5%).
const { metrics: METRICS, analytics: ANALYTICS } = options;
const PREFIX = `petstore-bench:${process.pid}:${randomUUID().slice(0, 8)}`;

const log = (line: string) => process.stdout.write(`${line}\n`);
const NAMES = ["project", "reference", "limiter off"] as const;

/** Prints `rows` under `header` as an aligned text table. */
function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join(" | ");
  log(line(header));
  log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const r of rows) log(line(r));
}

async function main(): Promise<void> {
  if (await ensureBuild(log)) log("built.");
  log("Preparing a temporary PostgreSQL database ...");
  const db: PreparedDatabase = await prepareDatabase("petstore_bench");
  const servers: ProductionServer[] = [];
  try {
    const { key } = await db.rt.apiKeys.create(
      { name: "bench", plan: "enterprise", perMinute: 100_000_000, perDay: 100_000_000 },
      "bench",
    );
    const pet = await databaseOf(db.rt).prisma.pet.findFirstOrThrow({ orderBy: { id: "asc" } });
    const category = await databaseOf(db.rt).prisma.category.findFirstOrThrow({ orderBy: { id: "asc" } });
    // 1,000 animals, as in issue 7's measurements (the seed has a few dozen).
    const seeded = await databaseOf(db.rt).prisma.pet.count();
    await databaseOf(db.rt).prisma.pet.createMany({
      data: Array.from({ length: Math.max(0, 1_000 - seeded) }, (_, i) => ({
        name: `animal ${i + 1}`,
        categoryId: category.id,
      })),
    });
    const animals = await databaseOf(db.rt).prisma.pet.count();
    const scenarios = benchScenarios(key, pet.id, category.id);
    const common = {
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: "https://api.bench.example",
      ANONYMOUS_PER_MINUTE: "100000000",
      LOG_LEVEL: options.logLevel,
    };
    const profiling = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
    const loadAtStart = os.loadavg();
    log(`Starting the project (limiter on), the reference and the project (limiter off) ...`);
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    const on = await startProductionServer(
      ports[0] as number,
      { ...common, REDIS_URL, RATE_LIMIT_PREFIX: PREFIX },
      90_000,
      "server.ts",
      profiling,
    );
    servers.push(on);
    const reference = await startProductionServer(
      ports[1] as number,
      { ...common, REDIS_URL, RATE_LIMIT_PREFIX: `${PREFIX}:ref` },
      90_000,
      "bench/reference.ts",
    );
    servers.push(reference);
    const off = await startProductionServer(
      ports[2] as number,
      METRICS
        ? { ...common, REDIS_URL, RATE_LIMIT_PREFIX: `${PREFIX}:off`, METRICS_ENABLED: "false" }
        : ANALYTICS
          ? { ...common, REDIS_URL, RATE_LIMIT_PREFIX: `${PREFIX}:off`, ANALYTICS_ENABLED: "false" }
          : { ...common, RATE_LIMIT_ENABLED: "false" },
    );
    servers.push(off);
    const targets = [on, reference, off];
    log(
      `${animals} animals. Each scenario, per server: ${WARMUP} s warm-up, then ${DURATION} s in ${ROUNDS} ` +
        `rotating rounds, ${CONNECTIONS} connections. Load average at start: ${loadAverage()}\n`,
    );
    const tallies = scenarios.map(() => targets.map(() => new Tally()));
    const redisUse: RedisUse[] = [];
    for (const [i, scenario] of scenarios.entries()) {
      await measureRounds(scenario, targets, tallies[i] as Tally[], {
        seconds: DURATION,
        rounds: ROUNDS,
        warmup: WARMUP,
        connections: CONNECTIONS,
      });
      redisUse.push(await probeRedis(scenario, on, off));
      log(`  ${scenario.name}: done`);
    }
    const rss = Object.fromEntries(targets.map((t, i) => [NAMES[i], rssMb(t.pid)]));

    const results = scenarios.map((scenario, i) => {
      const [project, ref, limiterOff] = (tallies[i] as Tally[]).map((t) => t.result()) as [
        Measurement,
        Measurement,
        Measurement,
      ];
      return {
        scenario: scenario.name,
        project,
        reference: ref,
        limiterOff,
        throughputVsReference: round(project.reqPerSec / ref.reqPerSec, 3),
        p99VsReference: round(project.p99Ms / ref.p99Ms, 2),
        limiterOnOff: round(project.reqPerSec / limiterOff.reqPerSec, 3),
        redis: redisUse[i] as RedisUse,
      };
    });
    const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
    const codes = (m: Measurement) =>
      Object.entries(m.statusCodes)
        .map(([c, n]) => `${c}×${n}`)
        .join(" ");
    log("");
    table(
      [
        "scenario",
        "project req/s p50 p99 cpu/req",
        "reference req/s p50 p99 cpu/req",
        "req/s ratio",
        "p99 ratio",
        "statuses",
      ],
      results.map((r) => [
        r.scenario,
        `${r.project.reqPerSec} ${r.project.p50Ms} ${r.project.p99Ms} ${r.project.cpuMsPerRequest}`,
        `${r.reference.reqPerSec} ${r.reference.p50Ms} ${r.reference.p99Ms} ${r.reference.cpuMsPerRequest}`,
        pct(r.throughputVsReference),
        `${r.p99VsReference}x`,
        `${codes(r.project)} / ${codes(r.reference)}`,
      ]),
    );
    log("");
    table(
      [
        "scenario",
        "on req/s cpu/req",
        "off req/s (p50 p99) cpu/req",
        "on/off",
        "cpu off/on",
        "Redis cmds/req (on)",
      ],
      results.map((r) => [
        r.scenario,
        `${r.project.reqPerSec} ${r.project.cpuMsPerRequest}`,
        `${r.limiterOff.reqPerSec} (${r.limiterOff.p50Ms} ${r.limiterOff.p99Ms}) ${r.limiterOff.cpuMsPerRequest}`,
        pct(r.limiterOnOff),
        pct(r.limiterOff.cpuMsPerRequest / r.project.cpuMsPerRequest),
        `${r.redis.commandsPerRequest} (${Object.entries(r.redis.byCommand)
          .map(([c, n]) => `${c} ${n}`)
          .join(", ")})`,
      ]),
    );
    const worst = Math.min(...results.map((r) => r.limiterOnOff));
    log(
      `\nLatencies and cpu/req (CPU time of the server per response; what a loaded machine distorts least) in ms. RSS after the run (MB): ${Object.entries(
        rss,
      )
        .map(([n, v]) => `${n} ${v}`)
        .join(", ")}. Limiter cost: worst on/off ratio ${pct(worst)} (target > 85%). ` +
        `Load average at end: ${loadAverage()}.`,
    );
    const out = path.join(WEB_DIR, "bench-results", "latest.json");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const summary = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      animals,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: os.loadavg(),
      durationSeconds: DURATION,
      warmupSeconds: WARMUP,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      rssMb: rss,
      results,
      worstLimiterOnOff: worst,
    };
    fs.writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
    log(`Results written to ${path.relative(process.cwd(), out)}`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await db.drop();
    await deletePrefix(PREFIX);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
