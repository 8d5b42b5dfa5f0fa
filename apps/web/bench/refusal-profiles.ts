/**
 * `npm run bench:refusals`: what one refused request costs the all-in-one instance, per flood of
 * bench/floods.ts's `addressFloods` and beside the same flood on /healthz: a fresh instance per flood (as the
 * address-flood bench runs it, under `node --cpu-prof`), the flood alone for `--duration` seconds at `--flood-rate`
 * requests a second from `--flood-addresses` loopback addresses, then the server's CPU ms per flood request (from
 * /proc, over the flood only) and its CPU profile's self time by package (bench/profile.ts), written beside the
 * profiles in `BENCH_PROFILE` (default bench-results/refusal-profiles). `--only=<text>` keeps the floods whose name
 * has it. docs/performance.md "Floods" gives the latest figures.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {
  ensureBuild,
  prepareDatabase,
  SERVER_BUNDLE,
  startProductionServer,
  WEB_DIR,
} from "../test/instances/production-server.ts";
import { freePort } from "../test/support/common.ts";
import { type AddressFlood, addressFloods, loopbackAddresses, runAddressFlood } from "./floods.ts";
import { cpuMs, loadAverage, round, serverLog } from "./measure.ts";
import { options } from "./options.ts";
import { deletePrefix } from "./redis.ts";

const log = (line: string) => process.stdout.write(`${line}\n`);
const OUT = path.resolve(options.profileDir ?? path.join(WEB_DIR, "bench-results", "refusal-profiles"));

async function main(): Promise<void> {
  if (await ensureBuild(log)) log("built.");
  const db = await prepareDatabase("petstore_refusals");
  const prefix = `petstore-bench:refusals:${process.pid}`;
  const addresses = loopbackAddresses(options.floodAddresses);
  const rows: Record<string, unknown>[] = [];
  try {
    const healthz: AddressFlood = {
      name: "/healthz (reference)",
      request: { method: "GET", path: "/healthz" },
    };
    const port = await freePort();
    const floods = [
      healthz,
      ...addressFloods(`http://127.0.0.1:${port}`).filter((f) => !f.connections),
    ].filter((f) => !options.only || f.name.includes(options.only) || f === healthz);
    for (const flood of floods) {
      const slug = flood.name
        .replace(/[^a-z0-9]+/gi, "-")
        .replace(/^-|-$/g, "")
        .toLowerCase();
      const dir = path.join(OUT, slug);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      const server = await startProductionServer(
        port,
        {
          DATABASE_URL: db.url,
          REDIS_URL: options.redisUrl,
          RATE_LIMIT_PREFIX: `${prefix}:${slug}`,
          LOG_LEVEL: options.logLevel,
          PUBLIC_BASE_URL: "https://api.bench.example",
          ...options.allEnv,
          PETSTORE_SERVE: "all",
          TRUST_PROXY: "loopback",
        },
        90_000,
        SERVER_BUNDLE,
        ["--cpu-prof", `--cpu-prof-dir=${dir}`],
        serverLog(`refusals-${slug}`),
      );
      try {
        // Each route's modules loaded once, as in the address-flood bench.
        for (let i = 0; i < 5; i++) {
          const r = await fetch(`${server.baseUrl}${flood.request.path}`, {
            method: flood.request.method,
            headers: flood.request.headers ?? {},
            ...(flood.request.body ? { body: flood.request.body.replaceAll("{n}", `warm-${i}`) } : {}),
          });
          await r.arrayBuffer();
        }
        const before = cpuMs(server.pid);
        const result = await runAddressFlood(port, flood, {
          addresses,
          rate: options.floodRate,
          seconds: options.duration,
        });
        const cpu = cpuMs(server.pid) - before;
        rows.push({
          flood: flood.name,
          sent: result.sent,
          statusCodes: result.statusCodes,
          errors: result.errors,
          cpuMsPerRequest: round(cpu / Math.max(1, result.sent), 3),
          cpuShare: round(cpu / (result.seconds * 1000), 3),
        });
        log(
          `  ${flood.name}: ${result.sent} requests ${JSON.stringify(result.statusCodes)}, ${result.errors} errors; ` +
            `server CPU ${round(cpu / Math.max(1, result.sent), 3)} ms per request (${round((100 * cpu) / (result.seconds * 1000), 1)}% of a core). Load ${loadAverage()}`,
        );
      } finally {
        await server.stop();
      }
      // The server's own profile (named after its pid; the other is the dashboard process's), else the largest.
      const files = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".cpuprofile"))
        .sort((a, b) => fs.statSync(path.join(dir, b)).size - fs.statSync(path.join(dir, a)).size);
      const own = files.find((f) => f.includes(`.${server.pid}.`)) ?? files[0];
      const profile = own && path.join(dir, own);
      if (profile) {
        const summary = execFileSync(
          process.execPath,
          ["--import", "tsx", path.join(import.meta.dirname, "profile.ts"), profile, "12"],
          { encoding: "utf8" },
        );
        fs.writeFileSync(path.join(dir, "summary.txt"), summary);
        log(summary.split("\n\nSelf time by function")[0] ?? "");
      }
    }
    fs.writeFileSync(
      path.join(OUT, "results.json"),
      `${JSON.stringify({ date: new Date().toISOString(), rate: options.floodRate, seconds: options.duration, addresses: addresses.length, rows }, null, 2)}\n`,
    );
    log(`Results and profiles in ${path.relative(process.cwd(), OUT)}`);
  } finally {
    await db.drop();
    await deletePrefix(prefix);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
