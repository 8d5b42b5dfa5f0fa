/**
 * `npm run bench:dashboard`: every dashboard call's server time on the scale data set, and what an admin using
 * the dashboard does to /v1's latency. Its steps, options and output: docs/performance.md "How to reproduce";
 * the data set: docs/operations.md "Measuring the dashboard at scale".
 *
 * The production server runs through test/instances/production-server.ts (`node dist/server.js` over the Next
 * build). A call's CPU time is the server process's /proc ticks around it, averaged over the samples. Needs
 * PostgreSQL at 127.0.0.1:5432 and Redis at REDIS_URL (default redis://127.0.0.1:6379).
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { forOperatorCommands, loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { migrate } from "@petstore/core/migrate";
import { databaseOf, openNamedDatabase, sleep } from "@petstore/core/testing";
import { z } from "zod";
import { SESSION_COOKIE } from "../src/server/trpc/cookies.ts";
import {
  API_ROLE,
  childProcessesOf,
  ensureBuild,
  type ProductionServer,
  SERVER_BUNDLE,
  startProductionServer,
  WEB_DIR,
} from "../test/instances/production-server.ts";
import { freePort } from "../test/support/common.ts";
import { measureConsoleInteractions } from "./console-interactions.ts";
import { cpuMs, loadAverage, median, round, Tally } from "./measure.ts";
import { flag, readOptions } from "./options.ts";
import { deletePrefix } from "./redis.ts";
import { steadyLoad } from "./steady-load.ts";

const options = readOptions(
  z.object({
    database: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/)
      .default("petstore_dashboard_bench"),
    fresh: flag,
    samples: z.coerce.number().int().positive().default(7),
    rate: z.coerce.number().positive().default(40),
    rounds: z.coerce.number().int().min(1).default(6),
    roundSeconds: z.coerce.number().positive().default(5),
    adminPauseMs: z.coerce.number().min(0).default(1000),
    split: flag,
    browser: flag,
    redisUrl: z.string().min(1).default("redis://127.0.0.1:6379"),
  }),
  {
    database: { env: "BENCH_DATABASE" },
    fresh: { arg: "fresh", env: "BENCH_FRESH", flag: true },
    samples: { arg: "samples", env: "BENCH_SAMPLES" },
    rate: { arg: "rate", env: "BENCH_RATE" },
    rounds: { arg: "rounds", env: "BENCH_ROUNDS" },
    roundSeconds: { arg: "round-seconds", env: "BENCH_ROUND_SECONDS" },
    adminPauseMs: { arg: "admin-pause-ms", env: "BENCH_ADMIN_PAUSE_MS" },
    split: { arg: "split", env: "BENCH_SPLIT", flag: true },
    browser: { arg: "browser", env: "BENCH_BROWSER", flag: true },
    redisUrl: { env: "REDIS_URL" },
  },
);

const PREFIX = `petstore-bench-dashboard:${process.pid}:${randomUUID().slice(0, 8)}`;
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Prints `rows` under `header` as an aligned text table. */
function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join(" | ");
  log(line(header));
  log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const r of rows) log(line(r));
}

const max = (xs: number[]) => (xs.length ? Math.max(...xs) : Number.NaN);
const ms = (n: number) => (Number.isNaN(n) ? "-" : n.toFixed(n < 10 ? 1 : 0));

/** One tRPC query of a page: `procedure` with `input`, under a label saying what it shows. */
interface Call {
  page: string;
  label: string;
  procedure: string;
  input?: unknown;
}

/** The path of a page's HTML document (`page` as the calls name it; `keyId` the key detail page's key). */
function documentOf(page: string, keyId: string): string {
  const section = page.split(":")[0] ?? page;
  if (section === "overview") return "/admin";
  if (section === "key detail") return `/admin/keys/${keyId}`;
  return `/admin/${section}`;
}

/** The database with the scale data set: reused when fresh enough, else (re)seeded. */
async function scaleDatabase(): Promise<{ url: string; reused: boolean; seedSeconds?: number }> {
  let db = await openNamedDatabase(options.database);
  const open = (url: string) => {
    const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent" });
    return openRuntime({
      // Seeding and the migrations of a large database run statements of minutes.
      config: { ...config, database: forOperatorCommands(config.database) },
      logger: createLogger("silent"),
      prepare: migrate,
    });
  };
  if (!db.created && !options.fresh) {
    const rt = await open(db.url);
    try {
      const prisma = databaseOf(rt).prisma;
      const [newest, animals] = await Promise.all([
        prisma.usageHour.findFirst({ orderBy: { hour: "desc" }, select: { hour: true } }),
        prisma.pet.count(),
      ]);
      if (animals >= 1_000_000 && newest && Date.now() - newest.hour.getTime() < 6 * 3_600_000)
        return { url: db.url, reused: true };
      log(`Database ${db.name} is not a recent scale data set: seeding it anew ...`);
    } finally {
      await rt.close();
    }
  }
  if (!db.created) {
    await db.drop();
    db = await openNamedDatabase(options.database);
  }
  log(`Seeding the scale data set into ${db.name} (petstore db seed --scale) ...`);
  const rt = await open(db.url);
  try {
    const result = await rt.seedScale();
    log(`  ${JSON.stringify(result)}`);
    return { url: db.url, reused: false, seedSeconds: result.seconds };
  } finally {
    await rt.close();
  }
}

/** The calls of each dashboard page, with inputs naming rows of the data set, and the pages' documents. */
async function pageCalls(rt: Runtime): Promise<{ calls: Call[]; documents: Map<string, string> }> {
  const prisma = databaseOf(rt).prisma;
  const busyKey = await prisma.apiKey.findFirstOrThrow({
    where: { lastUsedAt: { not: null }, name: { startsWith: "Scale client" } },
    orderBy: { createdAt: "desc" },
  });
  const ninetyDaysAgo = new Date(Date.now() - 90 * 86_400_000).toISOString();
  const firstPage = { page: 1, pageSize: 20, sortBy: "id", sortDirection: "asc" };
  const calls: Call[] = [
    { page: "overview", label: "animals by status", procedure: "overview.animals" },
    { page: "overview", label: "keys by plan, top keys", procedure: "overview.keys" },
    { page: "overview", label: "traffic 24 h + 30 days", procedure: "overview.traffic" },
    { page: "animals", label: "first page", procedure: "pets.search", input: firstPage },
    { page: "animals", label: "categories", procedure: "categories.list" },
    {
      page: "animals: search",
      label: '"bella" (100,000 matches)',
      procedure: "pets.search",
      input: { ...firstPage, query: "bella" },
    },
    {
      page: "animals: search",
      label: '"bella 4242" (11 matches)',
      procedure: "pets.search",
      input: { ...firstPage, query: "bella 4242" },
    },
    {
      page: "animals: search",
      label: '"bella" by name, Z to A',
      procedure: "pets.search",
      input: { ...firstPage, query: "bella", sortBy: "name", sortDirection: "desc" },
    },
    {
      page: "animals: search",
      label: '"bella" by name, page 4,000 (of 5,000)',
      procedure: "pets.search",
      input: { ...firstPage, query: "bella", sortBy: "name", page: 4_000 },
    },
    {
      page: "animals: short search",
      label: '"x" (100,000 matches) by name',
      procedure: "pets.search",
      input: { ...firstPage, query: "x", sortBy: "name" },
    },
    {
      page: "animals: short search",
      label: '"x" by name, Z to A',
      procedure: "pets.search",
      input: { ...firstPage, query: "x", sortBy: "name", sortDirection: "desc" },
    },
    {
      page: "animals: short search",
      label: '"ax" (100,000 matches) by name, Z to A',
      procedure: "pets.search",
      input: { ...firstPage, query: "ax", sortBy: "name", sortDirection: "desc" },
    },
    {
      page: "animals: short search",
      label: '"zq" (no match) by name',
      procedure: "pets.search",
      input: { ...firstPage, query: "zq", sortBy: "name" },
    },
    {
      page: "animals: short search",
      label: '"x" by name, page 4,000 (of 5,000)',
      procedure: "pets.search",
      input: { ...firstPage, query: "x", sortBy: "name", page: 4_000 },
    },
    {
      page: "animals: by name",
      label: "first page by name",
      procedure: "pets.search",
      input: { ...firstPage, sortBy: "name" },
    },
    {
      page: "animals: deep page",
      label: "page 50,000 by name",
      procedure: "pets.search",
      input: { ...firstPage, sortBy: "name", page: 50_000 },
    },
    {
      page: "animals: deep page",
      label: "page 25,000 by name (the middle)",
      procedure: "pets.search",
      input: { ...firstPage, sortBy: "name", page: 25_000 },
    },
    {
      page: "animals: filtered",
      label: "sold, one category",
      procedure: "pets.search",
      input: { ...firstPage, status: "sold", categoryId: 2 },
    },
    { page: "keys", label: "first page", procedure: "apiKeys.list", input: {} },
    { page: "keys", label: "search", procedure: "apiKeys.list", input: { query: "client 42" } },
    ...(
      [
        ["by getPet calls", "getPetCalls"],
        ["by requests today", "requestsToday"],
        ["by requests, 7 days", "requests7d"],
        ["by requests, 30 days", "requests30d"],
        ["by 429s, 7 days", "rateLimited7d"],
        ["by bans, 30 days", "bans30d"],
      ] as const
    ).map(([label, sort]) => ({ page: "keys: sorted", label, procedure: "apiKeys.list", input: { sort } })),
    { page: "key detail", label: "key", procedure: "apiKeys.get", input: { id: busyKey.id } },
    {
      page: "key detail",
      label: "usage 30 days",
      procedure: "apiKeys.usage",
      input: { id: busyKey.id, days: 30 },
    },
    {
      page: "key detail",
      label: "traffic 30 days",
      procedure: "apiKeys.traffic",
      input: { id: busyKey.id, days: 30 },
    },
    {
      page: "key detail",
      label: "recent requests",
      procedure: "apiKeys.recentRequests",
      input: { id: busyKey.id },
    },
    { page: "audit", label: "first page", procedure: "audit.list", input: { page: 1, pageSize: 25 } },
    { page: "audit", label: "who (actors)", procedure: "audit.actors" },
    {
      page: "audit: filtered",
      label: "by actor",
      procedure: "audit.list",
      input: { page: 1, pageSize: 25, actor: "user:scale-user-7@petstore.example" },
    },
    {
      page: "audit: filtered",
      label: "by action",
      procedure: "audit.list",
      input: { page: 1, pageSize: 25, action: "apiKey.ban" },
    },
    {
      page: "audit: filtered",
      label: "90-day range, deep page",
      procedure: "audit.list",
      input: { page: 2_000, pageSize: 25, from: ninetyDaysAgo },
    },
    { page: "categories", label: "list", procedure: "categories.list" },
    { page: "plans", label: "list", procedure: "plans.list" },
    { page: "plans", label: "affected keys", procedure: "plans.affectedKeys", input: { plan: "free" } },
    { page: "users", label: "list", procedure: "users.list" },
  ];
  const documents = new Map(calls.map((c) => [c.page, documentOf(c.page, busyKey.id)]));
  return { calls, documents };
}

interface Timed {
  ms: number;
  status: number;
}

/** One tRPC GET of `call` (no batching), timed from send to the last byte read. */
async function timeCall(baseUrl: string, cookie: string, call: Call): Promise<Timed> {
  const query = call.input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(call.input))}`;
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/trpc/${call.procedure}${query}`, {
    headers: { cookie },
    signal: AbortSignal.timeout(60_000),
  });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

/**
 * One page load as the browser makes it: the page's calls in one batched tRPC GET (httpBatchLink), timed
 * from send to the last byte read.
 */
async function loadPage(baseUrl: string, cookie: string, calls: Call[]): Promise<Timed> {
  const input = Object.fromEntries(calls.map((c, i) => [i, c.input]).filter(([, v]) => v !== undefined));
  const started = performance.now();
  const response = await fetch(
    `${baseUrl}/api/trpc/${calls.map((c) => c.procedure).join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
    { headers: { cookie }, signal: AbortSignal.timeout(60_000) },
  );
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

/** One page's HTML document as a signed-in browser asks for it, timed from send to the last byte read. */
async function loadDocument(baseUrl: string, cookie: string, path: string): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { cookie, accept: "text/html" },
    redirect: "manual",
    signal: AbortSignal.timeout(60_000),
  });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

/** Downloads the audit CSV from `from` (ISO) on, counting rows and bytes as they arrive. */
async function exportAudit(baseUrl: string, cookie: string, from: string) {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/audit/export?from=${encodeURIComponent(from)}`, {
    headers: { cookie },
    signal: AbortSignal.timeout(300_000),
  });
  let bytes = 0;
  let lines = 0;
  let firstByteMs: number | undefined;
  const decoder = new TextDecoder();
  let tail = "";
  for await (const chunk of response.body ?? []) {
    firstByteMs ??= performance.now() - started;
    bytes += chunk.byteLength;
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-2);
    lines += chunk.reduce((n: number, b: number) => n + (b === 10 ? 1 : 0), 0);
  }
  return {
    status: response.status,
    rows: Math.max(0, lines - 1),
    bytes,
    seconds: round((performance.now() - started) / 1000, 2),
    firstByteMs: round(firstByteMs ?? 0, 1),
    endsWithNewline: tail.endsWith("\r\n"),
  };
}

async function main(): Promise<void> {
  if (await ensureBuild(log)) log("built.");
  const loadAtStart = os.loadavg();
  const database = await scaleDatabase();
  log(`Scale data set: ${options.database} (${database.reused ? "reused" : "seeded now"}).`);
  const rt = await openRuntime({
    config: loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" }),
    logger: createLogger("silent"),
    prepare: migrate,
  });
  let server: ProductionServer | undefined;
  let apiServer: ProductionServer | undefined;
  try {
    const password = randomBytes(18).toString("base64url");
    const email = `bench-admin-${Date.now()}@petstore.example`;
    await rt.users.create({ email, name: "Bench admin", role: "admin", password }, "bench");
    const session = await rt.sessions.signIn({ email, password }, { ip: "127.0.0.1" });
    const cookie = `${SESSION_COOKIE}=${session.token}`;
    const { key } = await rt.apiKeys.create(
      { name: "bench dashboard", plan: "enterprise", perMinute: 100_000_000, perDay: 100_000_000 },
      "bench",
    );
    const { calls, documents } = await pageCalls(rt);
    const prisma = databaseOf(rt).prisma;
    const counts = {
      animals: await prisma.pet.count(),
      apiKeys: await prisma.apiKey.count(),
      usageRows: await prisma.usageHour.count(),
      auditEntries: await prisma.auditLog.count(),
    };
    log(`Rows: ${JSON.stringify(counts)}`);

    const serverEnv = {
      DATABASE_URL: database.url,
      REDIS_URL: options.redisUrl,
      RATE_LIMIT_PREFIX: PREFIX,
      PUBLIC_BASE_URL: "https://api.bench.example",
      ANONYMOUS_PER_MINUTE: "100000000",
    };
    server = await startProductionServer(
      await freePort(),
      options.split ? { ...serverEnv, PETSTORE_SERVE: "dashboard" } : serverEnv,
    );
    // --split: /v1 goes to an instance of its own, as in a deployment with API-only instances.
    apiServer = options.split
      ? await startProductionServer(
          await freePort(),
          { ...serverEnv, ...API_ROLE.env },
          90_000,
          SERVER_BUNDLE,
          API_ROLE.nodeArgs,
        )
      : server;
    const base = server.baseUrl;
    log(`Server up. Load average: ${loadAverage()}. Warming up ...`);
    for (let i = 0; i < 2; i++) for (const call of calls) await timeCall(base, cookie, call);
    // A route's first render loads its code.
    for (let i = 0; i < 2; i++)
      for (const path of new Set(documents.values())) await loadDocument(base, cookie, path);

    log(`Each dashboard call alone, ${options.samples} times ...`);
    const quiet = new Map<Call, Timed[]>(calls.map((c) => [c, []]));
    const cpu = new Map<Call, number>(calls.map((c) => [c, 0]));
    for (let i = 0; i < options.samples; i++)
      for (const call of calls) {
        const before = cpuMs(server.pid);
        quiet.get(call)?.push(await timeCall(base, cookie, call));
        cpu.set(call, (cpu.get(call) ?? 0) + cpuMs(server.pid) - before);
      }

    log(`Each page's document alone, ${options.samples} times ...`);
    // The pages render in the dashboard's Next.js process, the server's one child.
    const [nextPid] = childProcessesOf(server.pid);
    const documentsAlone = new Map<string, { loads: Timed[]; cpuMs: number }>(
      [...documents.keys()].map((page) => [page, { loads: [], cpuMs: 0 }]),
    );
    for (let i = 0; i < options.samples; i++)
      for (const [page, path] of documents) {
        const entry = documentsAlone.get(page);
        const before = cpuMs(nextPid);
        entry?.loads.push(await loadDocument(base, cookie, path));
        if (entry) entry.cpuMs += cpuMs(nextPid) - before;
      }

    log("Audit CSV export of the last 90 days ...");
    const exportFrom = new Date(Date.now() - 90 * 86_400_000).toISOString();
    const expectedExport = await prisma.auditLog.count({ where: { at: { gte: new Date(exportFrom) } } });
    const exported = await exportAudit(base, cookie, exportFrom);

    const statuses = (timed: Timed[]) => {
      const bad = timed.filter((t) => t.status !== 200).map((t) => t.status);
      return bad.length ? [...new Set(bad)].join(",") : "";
    };
    log(`GET /v1/store/inventory (getInventory) at ${counts.animals} animals, ${options.samples} times ...`);
    const inventoryCalls: Timed[] = [];
    let inventoryCpu = 0;
    let answered: Record<string, number> = {};
    for (let i = 0; i < options.samples + 2; i++) {
      const before = cpuMs(apiServer.pid);
      const started = performance.now();
      const response = await fetch(`${apiServer.baseUrl}/v1/store/inventory`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(60_000),
      });
      answered = (await response.json()) as Record<string, number>;
      // The first two warm the route up.
      if (i < 2) continue;
      inventoryCalls.push({ ms: performance.now() - started, status: response.status });
      inventoryCpu += cpuMs(apiServer.pid) - before;
    }
    const byStatus = await prisma.pet.groupBy({ by: ["status"], _count: true });
    const counted = Object.fromEntries(byStatus.map((r) => [r.status ?? "unset", r._count]));
    const inventory = {
      animals: counts.animals,
      medianMs: round(median(inventoryCalls.map((t) => t.ms)), 1),
      maxMs: round(max(inventoryCalls.map((t) => t.ms)), 1),
      serverCpuMs: round(inventoryCpu / Math.max(1, inventoryCalls.length), 2),
      samples: inventoryCalls.length,
      errors: statuses(inventoryCalls),
      exact: Object.entries(counted).every(([status, n]) => answered[status] === n),
      answered,
    };

    let interactions: Awaited<ReturnType<typeof measureConsoleInteractions>> = [];
    if (options.browser) {
      log(`The console's interactions in Chromium, ${options.samples} rounds ...`);
      interactions = await measureConsoleInteractions(base, cookie, options.samples);
    }

    log(
      `/v1 at ${options.rate} req/s: ${options.rounds} rounds of ${options.roundSeconds} s per condition, rotating ` +
        `without the dashboard, with an admin loading the pages (${options.adminPauseMs} ms between pages) and ` +
        "with the admin loading them flat out ...",
    );
    const v1 = {
      url: `${apiServer.baseUrl}/v1/pets?limit=20`,
      headers: { authorization: `Bearer ${key}` },
      rate: options.rate,
    };
    await steadyLoad({ ...v1, seconds: 3 });
    const conditions = [
      { name: "without the dashboard", pauseMs: undefined as number | undefined },
      { name: `with an admin (${options.adminPauseMs} ms between pages)`, pauseMs: options.adminPauseMs },
      { name: "with an admin flat out (no pause)", pauseMs: 0 },
    ].map((c) => ({ ...c, tally: new Tally(), roundP99s: [] as number[], pageLoads: 0 }));

    const pages = [...new Set(calls.map((c) => c.page))];
    const loaded = new Map<string, Timed[]>(pages.map((p) => [p, []]));
    const documentsLoaded = new Map<string, Timed[]>(pages.map((p) => [p, []]));
    for (let r = 0; r < options.rounds; r++) {
      for (let j = 0; j < conditions.length; j++) {
        const condition = conditions[(r + j) % conditions.length] as (typeof conditions)[number];
        let running = condition.pauseMs !== undefined;
        const loop = (async () => {
          while (running) {
            for (const page of pages) {
              if (!running) break;
              documentsLoaded
                .get(page)
                ?.push(await loadDocument(base, cookie, documents.get(page) ?? "/admin"));
              loaded.get(page)?.push(
                await loadPage(
                  base,
                  cookie,
                  calls.filter((c) => c.page === page),
                ),
              );
              condition.pageLoads++;
              if (condition.pauseMs) await sleep(condition.pauseMs);
            }
          }
        })();
        const roundTally = new Tally();
        const measured = await steadyLoad({ ...v1, seconds: options.roundSeconds });
        running = false;
        await loop;
        roundTally.latencies = measured.latenciesMs;
        roundTally.seconds = measured.seconds;
        roundTally.statusCodes = measured.statusCodes;
        condition.roundP99s.push(roundTally.result().p99Ms);
        condition.tally.latencies.push(...roundTally.latencies);
        condition.tally.seconds += roundTally.seconds;
        condition.tally.errors += measured.errors;
        for (const [code, n] of Object.entries(roundTally.statusCodes))
          condition.tally.statusCodes[code] = (condition.tally.statusCodes[code] ?? 0) + n;
      }
    }
    const v1Results = conditions.map((c) => ({
      condition: c.name,
      ...c.tally.result(),
      maxMs: round(Math.max(...c.tally.latencies), 1),
      roundP99s: c.roundP99s,
      pageLoads: c.pageLoads,
    }));

    const rows = calls.map((c) => {
      const q = quiet.get(c) ?? [];
      const bad = q.filter((t) => t.status !== 200).map((t) => t.status);
      return {
        page: c.page,
        call: `${c.procedure} (${c.label})`,
        quietMedianMs: round(median(q.map((t) => t.ms)), 1),
        quietMaxMs: round(max(q.map((t) => t.ms)), 1),
        serverCpuMs: round((cpu.get(c) ?? 0) / Math.max(1, q.length), 1),
        samples: q.length,
        errors: bad.length ? [...new Set(bad)].join(",") : "",
      };
    });
    log("");
    table(
      ["page", "call", "alone: median ms", "max ms", "server CPU ms", "errors"],
      rows.map((r) => [r.page, r.call, ms(r.quietMedianMs), ms(r.quietMaxMs), ms(r.serverCpuMs), r.errors]),
    );
    const documentRows = [...documentsAlone].map(([page, { loads, cpuMs: cpu }]) => ({
      page,
      document: documents.get(page) ?? "",
      quietMedianMs: round(median(loads.map((t) => t.ms)), 1),
      quietMaxMs: round(max(loads.map((t) => t.ms)), 1),
      dashboardCpuMs: round(cpu / Math.max(1, loads.length), 1),
      errors: statuses(loads),
    }));
    log("");
    table(
      ["page", "document", "alone: median ms", "max ms", "Next process CPU ms", "errors"],
      documentRows.map((d) => [
        d.page,
        d.document,
        ms(d.quietMedianMs),
        ms(d.quietMaxMs),
        ms(d.dashboardCpuMs),
        d.errors,
      ]),
    );
    const pageRows = pages.map((page) => {
      const l = loaded.get(page) ?? [];
      const d = documentsLoaded.get(page) ?? [];
      return {
        page,
        calls: calls.filter((c) => c.page === page).length,
        loads: l.length,
        documentMedianMs: round(median(d.map((t) => t.ms)), 1),
        documentMaxMs: round(max(d.map((t) => t.ms)), 1),
        medianMs: round(median(l.map((t) => t.ms)), 1),
        maxMs: round(max(l.map((t) => t.ms)), 1),
        errors: statuses([...d, ...l]),
      };
    });
    log("");
    table(
      [
        "page in the admin loops",
        "calls",
        "loads",
        "document median ms",
        "max ms",
        "batched calls median ms",
        "max ms",
        "errors",
      ],
      pageRows.map((p) => [
        p.page,
        String(p.calls),
        String(p.loads),
        ms(p.documentMedianMs),
        ms(p.documentMaxMs),
        ms(p.medianMs),
        ms(p.maxMs),
        p.errors,
      ]),
    );
    log("");
    table(
      [
        "/v1/pets?limit=20",
        "requests",
        "p50 ms",
        "p99 ms",
        "p99 per round",
        "max ms",
        "p99 vs without",
        "page loads",
        "statuses",
      ],
      v1Results.map((v) => [
        v.condition,
        String(v.requests),
        String(v.p50Ms),
        String(v.p99Ms),
        `${Math.min(...v.roundP99s)}–${Math.max(...v.roundP99s)}`,
        String(v.maxMs),
        `${round(v.p99Ms / (v1Results[0]?.p99Ms ?? 1), 2)}x`,
        String(v.pageLoads),
        Object.entries(v.statusCodes)
          .map(([c, n]) => `${c}×${n}`)
          .join(" "),
      ]),
    );
    log("");
    table(
      ["/v1 at scale", "animals", "median ms", "max ms", "server CPU ms", "exact", "errors"],
      [
        [
          "getInventory",
          String(inventory.animals),
          ms(inventory.medianMs),
          ms(inventory.maxMs),
          String(inventory.serverCpuMs),
          inventory.exact ? "yes" : `no: ${JSON.stringify(inventory.answered)} vs ${JSON.stringify(counted)}`,
          inventory.errors,
        ],
      ],
    );
    if (interactions.length) {
      log("");
      table(
        ["page", "interaction (Event Timing, 16 ms floor)", "count", "median ms", "max ms"],
        interactions.map((i) => [i.page, i.interaction, String(i.count), ms(i.medianMs), ms(i.maxMs)]),
      );
    }
    const p99Ratio = round((v1Results[1]?.p99Ms ?? 0) / (v1Results[0]?.p99Ms ?? 1), 2);
    const slowest = Math.max(...rows.map((r) => r.quietMaxMs));
    log(
      `\n/v1 p99 with an admin using the dashboard / without: ${p99Ratio}x (target <= 1.5x). ` +
        `Slowest dashboard call alone: ${ms(slowest)} ms (target <= 300). Audit export of 90 days: ` +
        `${exported.rows} of ${expectedExport} entries (status ${exported.status}), ${exported.bytes} bytes in ` +
        `${exported.seconds} s, first byte after ${exported.firstByteMs} ms. Load average: ${loadAverage()}.`,
    );

    const out = path.join(WEB_DIR, "bench-results", "dashboard.json");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(
      out,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model,
          database: { name: options.database, ...database },
          rows: counts,
          loadAverageAtStart: loadAtStart,
          loadAverageAtEnd: os.loadavg(),
          options,
          calls: rows,
          documentsAlone: documentRows,
          pagesInTheAdminLoops: pageRows,
          export: { ...exported, expectedRows: expectedExport },
          inventory,
          v1: v1Results,
          v1P99Ratio: p99Ratio,
          interactions,
        },
        null,
        2,
      )}\n`,
    );
    log(`Results written to ${path.relative(process.cwd(), out)}`);
  } finally {
    if (apiServer !== server) await apiServer?.stop();
    await server?.stop();
    await rt.close();
    await deletePrefix(PREFIX);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
