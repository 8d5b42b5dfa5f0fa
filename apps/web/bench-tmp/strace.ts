import { spawn } from "node:child_process";
import autocannon from "autocannon";
import { databaseOf } from "@petstore/core/testing";
import { prepareDatabase, SERVER_BUNDLE, startProductionServer, API_ROLE } from "../test/instances/production-server.ts";
import { freePort } from "../test/support/common.ts";
import { manyKeyScenarios } from "../bench/scenarios.ts";
import { collectPages } from "../bench/traffic.ts";

const db = await prepareDatabase("petstore_strace");
const keys: string[] = [];
for (let i = 0; i < 1000; i++) keys.push((await db.rt.apiKeys.create({ name: `k${i}`, plan: "enterprise", perMinute: 1e8, perDay: 1e8 }, "x")).key);
const prisma = databaseOf(db.rt).prisma;
const common = { DATABASE_URL: db.url, PUBLIC_BASE_URL: "https://x.example", ANONYMOUS_PER_MINUTE: "100000000", LOG_LEVEL: "info", REDIS_URL: "redis://127.0.0.1:6379", RATE_LIMIT_PREFIX: `strace:${process.pid}` };
const api = await startProductionServer(await freePort(), { ...common, ...API_ROLE.env, PETSTORE_SERVE: "api" }, 90_000, SERVER_BUNDLE, API_ROLE.nodeArgs, { logFile: "/tmp/strace-api.log" });
const ref = await startProductionServer(await freePort(), { ...common, RATE_LIMIT_PREFIX: `strace-ref:${process.pid}` }, 90_000, "bench/reference.ts", [], { logFile: "/tmp/strace-ref.log" });
const animals = await prisma.pet.findMany({ select: { id: true } });
const categories = await prisma.category.findMany({ select: { id: true } });
const pages = await collectPages(api.baseUrl, keys[0] as string);
const scenario = manyKeyScenarios({ keys, animalIds: animals.map((a) => Number(a.id)), categoryIds: categories.map((c) => Number(c.id)), pages })[Number(process.env.SCENARIO ?? 0)]!;
console.log(scenario.name);
for (const [name, target, reference] of [["api", api, false], ["reference", ref, true]] as const) {
  await autocannon({ ...scenario.options(target.baseUrl, reference), connections: 16, duration: 3 });
  // the serving process: the largest child for tsx
  const pid = target.pid as number;
  const st = spawn("strace", ["-c", "-f", "-p", String(pid), "-o", `/tmp/strace-${name}.txt`]);
  await new Promise((r) => setTimeout(r, 500));
  const r = await autocannon({ ...scenario.options(target.baseUrl, reference), connections: 16, duration: 6 });
  st.kill("SIGINT");
  await new Promise((r) => st.on("exit", r));
  console.log(name, "requests", r.requests.total, "non2xx", r.non2xx);
}
await api.stop(); await ref.stop(); await db.drop();
