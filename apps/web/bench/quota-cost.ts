/**
 * What a monthly quota adds to a key check, in CPU µs of the limiter's process, measured without the network's and
 * the servers' noise: the rate limiter checks the requests of 1,000 keys on the Redis of REDIS_URL, 64 at a time
 * (as 64 connections' requests arrive), with and without a monthly quota on every key, in alternating rounds. The
 * server's whole CPU per response comes from `npm run bench -- --set=many --quotas`; docs/performance.md relates
 * the two. Usage: `npm run bench:quota -- [--rounds=8] [--checks=40000]`.
 */
import { randomUUID } from "node:crypto";
import { createRateLimiter, type KeyLimits, type RateLimiter } from "@petstore/core";
import { deleteKeys } from "@petstore/core/testing";
import { z } from "zod";
import { readOptions } from "../test/support/options.ts";

const options = readOptions(
  z.object({
    rounds: z.coerce.number().int().positive().default(8),
    checks: z.coerce.number().int().positive().default(40_000),
    redisUrl: z.string().min(1).default("redis://127.0.0.1:6379"),
  }),
  {
    rounds: { arg: "rounds", env: "BENCH_ROUNDS" },
    checks: { arg: "checks", env: "BENCH_CHECKS" },
    redisUrl: { env: "REDIS_URL" },
  },
);

const PREFIX = `bench-quota:${process.pid}:${randomUUID().slice(0, 8)}`;
const CONCURRENCY = 64;
const keys = Array.from({ length: 1_000 }, () => randomUUID());

function limiter(): RateLimiter {
  return createRateLimiter({
    config: {
      enabled: true,
      store: { kind: "redis", url: options.redisUrl },
      prefix: PREFIX,
      storeTimeoutMs: 5_000,
      breaker: { failures: 3, cooldownMs: 5_000 },
      anonymousPerMinute: 1e8,
      dashboardAnonymousPerMinute: 1e8,
      metricsScrapesPerMinute: 1e8,
      anonymousRefusalDelayMs: 0,
      ban: { threshold: 30, windowSeconds: 600, baseSeconds: 900 },
    },
    logger: { warn: () => {}, error: () => {} },
  });
}

/** CPU µs per check of `n` checks, 64 in flight, with a monthly quota on every key when `quota`. */
async function run(rl: RateLimiter, n: number, quota: boolean): Promise<number> {
  let next = 0;
  const start = process.cpuUsage();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const limits: KeyLimits = {
        keyId: keys[(i * 7919) % keys.length] as string,
        perMinute: 1e8,
        perDay: 1e8,
        ...(quota ? { perMonth: 2e9 } : {}),
      };
      const decision = await rl.checkKey(limits);
      if (!decision.allowed || decision.degraded) throw new Error("a check was not admitted by the store");
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

async function main() {
  const rl = limiter();
  await rl.ready();
  try {
    await run(rl, 5_000, false);
    await run(rl, 5_000, true);
    const rows: { round: number; without: number; with: number }[] = [];
    for (let r = 0; r < options.rounds; r++) {
      // Alternating which goes first, so that neither always runs on a warmer process.
      const first = r % 2 === 0;
      const a = await run(rl, options.checks, !first);
      const b = await run(rl, options.checks, first);
      const [without, withQuota] = first ? [a, b] : [b, a];
      rows.push({ round: r + 1, without, with: withQuota });
      process.stdout.write(
        `round ${r + 1}: ${without.toFixed(2)} µs without, ${withQuota.toFixed(2)} µs with a monthly quota (${(withQuota / without).toFixed(3)}x)\n`,
      );
    }
    const median = (xs: number[]) => {
      const s = [...xs].sort((x, y) => x - y);
      return (
        ((s[Math.floor((s.length - 1) / 2)] as number) + (s[Math.ceil((s.length - 1) / 2)] as number)) / 2
      );
    };
    const ratio = median(rows.map((r) => r.with / r.without));
    process.stdout.write(
      `median: ${median(rows.map((r) => r.without)).toFixed(2)} µs without, ${median(rows.map((r) => r.with)).toFixed(2)} µs with; ratio ${ratio.toFixed(3)}x\n`,
    );
  } finally {
    await rl.close();
    await deleteKeys(PREFIX);
  }
}

await main();
