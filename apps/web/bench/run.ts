/**
 * `npm run bench`: the production server (`node dist/server.js`) as an API-only and as an all-in-one instance
 * beside a bare reference (bench/reference.ts) and a Fastify peer (bench/fastify-peer.ts), every scenario
 * (bench/scenarios.ts) on the four in rotating rounds; with `--floods`, what floods leave of a real key's getPet instead (bench/floods.ts). What it measures,
 * its options (bench/options.ts, each also an environment variable) and its output: docs/performance.md "How to
 * reproduce"; how to read the figures: "Reading the figures" there.
 *
 * The servers share one temporary database and one Redis (each its own key prefix). The key is Enterprise with
 * limits so high that nothing is denied, yet every request goes through the limiter, and ANONYMOUS_PER_MINUTE is
 * raised likewise; the project logs at LOG_LEVEL=info (one line per request, as in production).
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { databaseOf } from "@petstore/core/testing";
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
import { measureAddressFloods, measureFloods } from "./floods.ts";
import { loadAverage, type Measurement, measureRounds, round, rssMb, serverLog, Tally } from "./measure.ts";
import { options } from "./options.ts";
import { deletePrefix } from "./redis.ts";
import { hotKeyScenarios, manyKeyScenarios, type Population } from "./scenarios.ts";
import { collectPages, seededStatus } from "./traffic.ts";

const { duration: DURATION, connections: CONNECTIONS, warmup: WARMUP, rounds: ROUNDS } = options;
const { profileDir: PROFILE_DIR, redisUrl: REDIS_URL } = options;
const PREFIX = `petstore-bench:${process.pid}:${randomUUID().slice(0, 8)}`;
const METRICS_TOKEN = `bench-metrics-${randomUUID()}`;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** A project server's V8 heap and external memory in MB (`<heap> / <external>`), read from its /metrics. */
async function heapOf(baseUrl: string): Promise<string> {
  const text = await (
    await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const mb = (name: string) =>
    (Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) / 1048576).toFixed(1);
  return `${mb("nodejs_heap_size_total_bytes")} / ${mb("nodejs_external_memory_bytes")}`;
}

/** Prints `rows` under `header` as an aligned text table. */
function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join(" | ");
  log(line(header));
  log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const r of rows) log(line(r));
}

/**
 * The third server: the all-in-one role, or an API-only one with metrics or analytics off, or with tracing on
 * (its OTLP endpoint set in main, once the receiver listens).
 */
const THIRD: { name: string; env: Record<string, string>; bundle?: string } = options.variant
  ? { name: "variant", env: { PETSTORE_SERVE: "api" }, bundle: path.resolve(options.variant) }
  : options.tracing
    ? { name: "api, tracing on", env: { PETSTORE_SERVE: "api" } }
    : options.metrics
      ? { name: "api, metrics off", env: { PETSTORE_SERVE: "api", METRICS_ENABLED: "false" } }
      : options.analytics
        ? { name: "api, analytics off", env: { PETSTORE_SERVE: "api", ANALYTICS_ENABLED: "false" } }
        : options.accounts
          ? { name: "api, account keys", env: { PETSTORE_SERVE: "api" } }
          : options.quotas
            ? { name: "api, monthly quota", env: { PETSTORE_SERVE: "api" } }
            : { name: "all", env: { PETSTORE_SERVE: "all" } };

/** The OTLP/HTTP receiver of `--tracing` (bench/otlp-sink.ts) in a child process: its port, its counts, its stop. */
async function startOtlpSink() {
  const child: ChildProcess = fork(path.join(import.meta.dirname, "otlp-sink.ts"), {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port));
    child.once("exit", (code) => reject(new Error(`the OTLP receiver exited (${code})`)));
  });
  return {
    port,
    report: () =>
      new Promise<{ exports: number; bytes: number }>((resolve) => {
        child.once("message", resolve as (m: unknown) => void);
        child.send({ report: true });
      }),
    close: () => child.kill(),
  };
}
const NAMES = ["api", "reference", THIRD.name, "fastify"] as const;

async function main(): Promise<void> {
  if (await ensureBuild(log)) log("built.");
  log("Preparing a temporary PostgreSQL database ...");
  const db: PreparedDatabase = await prepareDatabase("petstore_bench");
  const servers: ProductionServer[] = [];
  let closeSink: Awaited<ReturnType<typeof startOtlpSink>> | undefined;
  try {
    const { key } = await db.rt.apiKeys.create(
      { name: "bench", plan: "enterprise", perMinute: 100_000_000, perDay: 100_000_000 },
      "bench",
    );
    const prisma = databaseOf(db.rt).prisma;
    const category = await prisma.category.findFirstOrThrow({ orderBy: { id: "asc" } });
    // 1,000 animals (the seed has a few dozen), with a spread of statuses for the filtered pages.
    const seeded = await prisma.pet.count();
    await prisma.pet.createMany({
      data: Array.from({ length: Math.max(0, 1_000 - seeded) }, (_, i) => ({
        name: `animal ${i + 1}`,
        categoryId: category.id,
        status: seededStatus(i) ?? null,
      })),
    });
    const pet = await prisma.pet.findFirstOrThrow({ orderBy: { id: "asc" } });
    const animals = await databaseOf(db.rt).prisma.pet.count();
    const common = {
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: "https://api.bench.example",
      ANONYMOUS_PER_MINUTE: "100000000",
      LOG_LEVEL: options.logLevel,
      REDIS_URL,
      METRICS_TOKEN,
    };
    const profiling = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
    const loadAtStart = os.loadavg();
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);

    if (options.addressFloods) {
      // The default budgets, and no METRICS_TOKEN (the default outside production: the /metrics floods send
      // none); TRUST_PROXY `loopback`: each loopback address is a client of its own, or the X-Forwarded-For
      // address it sends (the /metrics flood from outside loopback, as through a proxy).
      const { ANONYMOUS_PER_MINUTE: _, METRICS_TOKEN: _token, ...defaults } = common;
      log(`Starting the project (PETSTORE_SERVE=all) ...`);
      const server = await startProductionServer(
        ports[0] as number,
        {
          ...defaults,
          RATE_LIMIT_PREFIX: `${PREFIX}:all`,
          ...options.allEnv,
          PETSTORE_SERVE: "all",
          TRUST_PROXY: "loopback",
        },
        90_000,
        SERVER_BUNDLE,
        profiling,
        serverLog("address-floods-all"),
      );
      servers.push(server);
      log(
        `${options.floodAddresses} addresses at ${options.floodRate} req/s in all; ${ROUNDS} rounds of ` +
          `${DURATION / ROUNDS} s. Load average at start: ${loadAverage()}`,
      );
      const results = await measureAddressFloods(server, {
        key,
        petId: pet.id,
        addresses: options.floodAddresses,
        rate: options.floodRate,
        log,
      });
      await server.stop();
      log(`Load average at the end: ${loadAverage()}`);
      writeResults({ mode: "address-floods", animals, loadAtStart, results });
      return;
    }

    if (options.floods) {
      // The default per-address budgets: the floods are to meet them as they would in production.
      const { ANONYMOUS_PER_MINUTE: _, ...defaults } = common;
      const results: Record<string, Awaited<ReturnType<typeof measureFloods>>> = {};
      // An API-only instance (as `npm run start:api` runs it), then an all-in-one one: in the second, the
      // dashboard flood's first calls reach Next, whose AsyncLocalStorage then costs every promise of the process.
      for (const role of ["api", "all"] as const) {
        log(`Starting the project (PETSTORE_SERVE=${role}) ...`);
        const server = await startProductionServer(
          ports[0] as number,
          {
            ...defaults,
            RATE_LIMIT_PREFIX: `${PREFIX}:${role}`,
            ...(role === "api" ? options.apiEnv : {}),
            PETSTORE_SERVE: role,
          },
          90_000,
          SERVER_BUNDLE,
          role === "api" ? options.apiNodeOptions : [],
          serverLog(`floods-${role}`),
        );
        servers.push(server);
        results[role] = await measureFloods(server, { key, petId: pet.id, metricsToken: METRICS_TOKEN, log });
        await server.stop();
      }
      writeResults({ mode: "floods", animals, loadAtStart, results });
      return;
    }

    if (options.tracing) {
      const sink = await startOtlpSink();
      closeSink = sink;
      THIRD.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${sink.port}`;
    }
    log(
      `Starting the project (PETSTORE_SERVE=api), the reference and the project (${THIRD.name}) on Node ` +
        `${process.version}${options.variantNode && THIRD.bundle ? ` (the ${THIRD.name} on ${options.variantNode})` : ""} ...`,
    );
    const api = await startProductionServer(
      ports[0] as number,
      { ...common, RATE_LIMIT_PREFIX: PREFIX, ...options.apiEnv, PETSTORE_SERVE: "api" },
      90_000,
      SERVER_BUNDLE,
      [...options.apiNodeOptions, ...profiling],
      serverLog("api"),
    );
    servers.push(api);
    const reference = await startProductionServer(
      ports[1] as number,
      { ...common, RATE_LIMIT_PREFIX: `${PREFIX}:ref` },
      90_000,
      "bench/reference.ts",
      profiling,
      serverLog("reference"),
    );
    servers.push(reference);
    const third = await startProductionServer(
      ports[2] as number,
      {
        ...common,
        RATE_LIMIT_PREFIX: `${PREFIX}:third`,
        ...(THIRD.env.PETSTORE_SERVE === "api"
          ? ((THIRD.bundle && options.variantEnv) ?? options.apiEnv)
          : {}),
        ...THIRD.env,
      },
      90_000,
      THIRD.bundle ?? SERVER_BUNDLE,
      THIRD.env.PETSTORE_SERVE === "api"
        ? [...((THIRD.bundle && options.variantNodeOptions) ?? options.apiNodeOptions), ...profiling]
        : [],
      {
        ...serverLog(THIRD.name.replace(/[^a-z]+/g, "-")),
        ...(THIRD.bundle && options.variantNode ? { node: options.variantNode } : {}),
      },
    );
    servers.push(third);
    if (THIRD.env.PETSTORE_SERVE === "all") {
      // The dashboard used before /v1 is measured, as on a real all-in-one instance: whatever Next sets up on its
      // first pages (its async-context tracking) is then in place.
      for (const page of ["/admin/sign-in", "/docs", "/api/trpc/auth.me"])
        await (await fetch(`${third.baseUrl}${page}`)).text();
    }
    const peer = await startProductionServer(
      ports[3] as number,
      { ...common, RATE_LIMIT_PREFIX: `${PREFIX}:fastify` },
      90_000,
      "bench/fastify-peer.ts",
      profiling,
      serverLog("fastify"),
    );
    servers.push(peer);
    await sameBodies([api, reference, peer], key, pet.id);
    const targets = [api, { ...reference, reference: true }, third, { ...peer, reference: true }];
    const runs = [
      ...(options.set === "hot"
        ? []
        : manyKeyScenarios(await manyKeyPopulation(db, api.baseUrl, key, third.baseUrl)).flatMap((scenario) =>
            options.manyConnections.map((connections) => ({
              scenario: { ...scenario, name: `${scenario.name}, ${connections} conns` },
              connections,
            })),
          )),
      ...(options.set === "many"
        ? []
        : hotKeyScenarios(key, pet.id, category.id).map((scenario) => ({
            scenario,
            connections: CONNECTIONS,
          }))),
    ].filter((r) => !options.only || r.scenario.name.includes(options.only));
    log(
      `${animals} animals. Each scenario, per server: ${WARMUP} s warm-up, then ${DURATION} s in ${ROUNDS} ` +
        `rotating rounds (hot-key: ${CONNECTIONS} connections). Load average at start: ${loadAverage()}\n`,
    );
    const tallies = runs.map(() => targets.map(() => new Tally()));
    for (const [i, { scenario, connections }] of runs.entries()) {
      await scenario.prepare?.(targets);
      await measureRounds(scenario, targets, tallies[i] as Tally[], {
        seconds: DURATION,
        rounds: ROUNDS,
        warmup: WARMUP,
        connections,
      });
      log(`  ${scenario.name}: done (load ${loadAverage()})`);
    }
    const rss = Object.fromEntries(targets.map((t, i) => [NAMES[i], rssMb(t.pid)]));
    const heaps = await Promise.all([api, third].map((t) => heapOf(t.baseUrl)));

    const results = runs.map(({ scenario }, i) => {
      const [project, ref, other, fastify] = (tallies[i] as Tally[]).map((t) => t.result()) as [
        Measurement,
        Measurement,
        Measurement,
        Measurement,
      ];
      return {
        scenario: scenario.name,
        api: project,
        reference: ref,
        third: other,
        fastify,
        apiVsReference: round(project.reqPerSec / ref.reqPerSec, 3),
        thirdVsReference: round(other.reqPerSec / ref.reqPerSec, 3),
        fastifyVsReference: round(fastify.reqPerSec / ref.reqPerSec, 3),
        apiCpuVsReference: round(project.cpuMsPerRequest / ref.cpuMsPerRequest, 2),
        apiCpuVsFastify: round(project.cpuMsPerRequest / fastify.cpuMsPerRequest, 2),
        thirdCpuVsApi: round(other.cpuMsPerRequest / project.cpuMsPerRequest, 2),
        apiP99VsReference: round(project.p99Ms / ref.p99Ms, 2),
        thirdP99VsReference: round(other.p99Ms / ref.p99Ms, 2),
      };
    });
    const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
    const cell = (m: Measurement) => `${m.reqPerSec} ${m.p50Ms} ${m.p99Ms} ${m.cpuMsPerRequest}`;
    log("");
    table(
      [
        "scenario",
        "api req/s p50 p99 cpu",
        "reference req/s p50 p99 cpu",
        `${THIRD.name} req/s p50 p99 cpu`,
        "fastify req/s p50 p99 cpu",
        "req/s api/ref",
        `${THIRD.name}/ref`,
        "fastify/ref",
        "cpu api/ref",
        "cpu api/fastify",
        `cpu ${THIRD.name}/api`,
        "p99 api/ref",
        `p99 ${THIRD.name}/ref`,
      ],
      results.map((r) => [
        r.scenario,
        cell(r.api),
        cell(r.reference),
        cell(r.third),
        cell(r.fastify),
        pct(r.apiVsReference),
        pct(r.thirdVsReference),
        pct(r.fastifyVsReference),
        `${r.apiCpuVsReference}x`,
        `${r.apiCpuVsFastify}x`,
        `${r.thirdCpuVsApi}x`,
        `${r.apiP99VsReference}x`,
        `${r.thirdP99VsReference}x`,
      ]),
    );
    log(
      `\nLatencies and cpu (CPU ms of the server per response) in ms. RSS after the run (MB): ${Object.entries(
        rss,
      )
        .map(([n, v]) => `${n} ${v}`)
        .join(
          ", ",
        )}; V8 heap / external memory (MB): api ${heaps[0]}, ${THIRD.name} ${heaps[1]}. Load average ` +
        `at end: ${loadAverage()}.`,
    );
    if (closeSink) {
      const { exports, bytes } = await closeSink.report();
      log(`OTLP receiver: ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB of spans.`);
    }
    writeResults({ mode: THIRD.name, animals, loadAtStart, rssMb: rss, results });
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    closeSink?.close();
    await db.drop();
    await deletePrefix(PREFIX);
  }
}

/**
 * Checks that the project, the reference and the peer answer byte-identical bodies: a few animals, and the first
 * page of each status filter. @throws naming the request whose bodies differ.
 */
async function sameBodies(servers: { baseUrl: string }[], key: string, firstId: bigint): Promise<void> {
  const paths = [
    ...[0n, 7n, 250n].map((d) => `/v1/pets/${firstId + d}`),
    ...["", "&status=available", "&status=pending", "&status=sold"].map((q) => `/v1/pets?limit=10${q}`),
  ];
  for (const path of paths) {
    const bodies = await Promise.all(
      servers.map(async (s) =>
        (await fetch(`${s.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } })).text(),
      ),
    );
    if (new Set(bodies).size !== 1)
      throw new Error(`the servers answer ${path} differently: ${bodies.join(" | ")}`);
  }
}

/**
 * `options.keys` Enterprise keys with limits nothing reaches (created through the service, as an admin would), the
 * animal and category ids, and every listPets page walked on `baseUrl` with `key`. With `--accounts`, as many keys
 * again for the server at `thirdUrl`: 4 per consumer account, on the Business plan with those limits, so that its
 * requests go through the account's shared windows and its request log. With `--quotas`, as many keys again for
 * the server at `thirdUrl`, on the Business plan with those limits and a monthly quota nothing reaches, so that
 * every check counts the UTC month too (docs/contract.md section 3, "Monthly quota").
 */
async function manyKeyPopulation(
  db: PreparedDatabase,
  baseUrl: string,
  key: string,
  thirdUrl: string,
): Promise<Population> {
  log(`Creating ${options.keys} API keys and walking every listPets page ...`);
  const keys: string[] = [];
  for (let i = 0; i < options.keys; i++) {
    const created = await db.rt.apiKeys.create(
      { name: `bench ${i}`, plan: "enterprise", perMinute: 100_000_000, perDay: 100_000_000 },
      "bench",
    );
    keys.push(created.key);
  }
  const keysByUrl = new Map<string, string[]>();
  if (options.accounts) {
    await db.rt.plans.update({ plan: "business", perMinute: 100_000_000, perDay: 100_000_000 }, "bench");
    await db.rt.plans.setKeyCap({ plan: "business", maxKeys: null }, "bench");
    const accountKeys: string[] = [];
    for (let i = 0; accountKeys.length < options.keys; i++) {
      const account = await db.rt.accounts.create(
        { name: `bench account ${i}`, plan: "business", ownerEmail: `bench-${i}@accounts.example` },
        "bench",
      );
      for (let k = 0; k < 4 && accountKeys.length < options.keys; k++)
        accountKeys.push(
          (await db.rt.apiKeys.createInAccount(account.id, { name: `key ${k}` }, "bench")).key,
        );
    }
    keysByUrl.set(thirdUrl, accountKeys);
  } else if (options.quotas) {
    await db.rt.plans.update(
      { plan: "business", perMinute: 100_000_000, perDay: 100_000_000, perMonth: 2_000_000_000 },
      "bench",
    );
    const quotaKeys: string[] = [];
    for (let i = 0; i < options.keys; i++)
      quotaKeys.push(
        (await db.rt.apiKeys.create({ name: `bench quota ${i}`, plan: "business" }, "bench")).key,
      );
    keysByUrl.set(thirdUrl, quotaKeys);
  }
  const prisma = databaseOf(db.rt).prisma;
  const [animals, categories, pages] = await Promise.all([
    prisma.pet.findMany({ select: { id: true } }),
    prisma.category.findMany({ select: { id: true } }),
    collectPages(baseUrl, key),
  ]);
  const categoryId = BigInt(categories[0]?.id ?? 1);
  return {
    keys,
    keysByUrl,
    animalIds: animals.map((a) => Number(a.id)),
    categoryIds: categories.map((c) => Number(c.id)),
    pages,
    // Added when the order scenario starts, after the pages above were walked: listPets' pages stay the 1,000's.
    orderable: async (url, count) =>
      (
        await prisma.$queryRaw<{ id: bigint }[]>`
          INSERT INTO "Pet" ("name", "categoryId", "status", "updatedAt")
          SELECT ${`orderable ${url} `} || g, ${categoryId}, 'available', now() FROM generate_series(1, ${count}) g
          RETURNING "id"`
      ).map((r) => Number(r.id)),
  };
}

function writeResults(summary: Record<string, unknown> & { loadAtStart: number[] }): void {
  const out = path.join(
    WEB_DIR,
    "bench-results",
    options.addressFloods ? "address-floods.json" : options.floods ? "floods.json" : "latest.json",
  );
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const { loadAtStart, ...rest } = summary;
  const full = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: os.loadavg(),
    durationSeconds: DURATION,
    warmupSeconds: WARMUP,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    ...rest,
  };
  fs.writeFileSync(out, `${JSON.stringify(full, null, 2)}\n`);
  log(`Results written to ${path.relative(process.cwd(), out)}`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
