/**
 * What the request log of consumer accounts adds to a /v1 request, in CPU µs, measured in one process without the
 * network's noise: the analytics recorder counts the same requests of 1,000 keys with and without their log entries
 * (the entry REST's `recordAnalytics` builds, the push, and the flush's JSON encoding every 12,500 requests, about
 * 5 s of the many-key bench's traffic), in alternating rounds. The server's whole CPU per response comes from
 * `npm run bench -- --set=many --accounts`; docs/performance.md relates the two. With `--flood`, the traffic is one
 * account's key refused with 429 (a flood past the account's budget: the log counts it in aggregate rows) beside
 * the 1,000 keys' getPet (every 10th request), so the rounds measure what a flood costs the log.
 * Usage: `npm run bench:request-log -- [--rounds=8] [--requests=250000] [--flood]`.
 */
import { randomUUID } from "node:crypto";
import { AnalyticsRecorder, type RequestRecord } from "@petstore/core";
import { z } from "zod";
import { flag, readOptions } from "../test/support/options.ts";

const options = readOptions(
  z.object({
    rounds: z.coerce.number().int().positive().default(8),
    requests: z.coerce.number().int().positive().default(250_000),
    flood: flag,
  }),
  {
    rounds: { arg: "rounds", env: "BENCH_ROUNDS" },
    requests: { arg: "requests", env: "BENCH_REQUESTS" },
    flood: { arg: "flood", env: "BENCH_FLOOD", flag: true },
  },
);

const BATCH = 12_500;
const keys = Array.from({ length: 1_000 }, (_, i) => ({
  id: randomUUID(),
  prefix: `pet_test_${i.toString(36).padStart(6, "0")}`,
  accountId: randomUUID(),
}));

/** The key of the flooding account (`--flood`). */
const flooder = { id: randomUUID(), prefix: "pet_test_flood", accountId: randomUUID() };

/** A recorder whose stores do nothing but encode what a flush would send, as the direct path does. */
function recorder(): AnalyticsRecorder {
  return new AnalyticsRecorder({
    write: async () => {},
    recent: { append: async () => {}, list: async () => [], close: async () => {} },
    logger: { error: () => {}, warn: () => {} },
    intervalMs: 1e9,
    writeLog: async (columns) => {
      Buffer.byteLength(JSON.stringify(columns));
    },
  });
}

/** CPU µs per request of counting `n` requests, with their log entries when `logged`. */
async function run(target: AnalyticsRecorder, n: number, logged: boolean): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const refused = options.flood && i % 10 !== 0;
    const key = refused ? flooder : (keys[(i * 7919) % keys.length] as (typeof keys)[number]);
    const url = `http://127.0.0.1:3000/v1/pets/${1 + (i % 1_000)}`;
    const record: RequestRecord = {
      keyId: key.id,
      operation: "getPet",
      ...(refused
        ? { outcome: "rate_limited", window: "minute", status: 429 }
        : { outcome: "2xx", status: 200 }),
      durationMs: 1.3,
      at: Date.now(),
      clientIp: "127.0.0.1",
      requestId: randomUUID(),
      ...(logged
        ? {
            log: {
              accountId: key.accountId,
              keyPrefix: key.prefix,
              method: "GET",
              path: url.slice(url.indexOf("/", url.indexOf("//") + 2)),
              errorCode: refused ? "rate_limited" : null,
              minuteRemaining: refused ? 0 : 99_999,
              dayRemaining: 9_999_999,
            },
          }
        : {}),
    };
    target.record(record);
    if ((i + 1) % BATCH === 0) await target.flush();
  }
  await target.flush();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const plain = recorder();
const withLog = recorder();
const rows: { plain: number; logged: number }[] = [];
await run(plain, BATCH, false);
await run(withLog, BATCH, true);
// Alternating which goes first, so that neither always runs on a heap the other has just filled.
for (let round = 0; round < options.rounds; round++) {
  if (round % 2 === 0) {
    const p = await run(plain, options.requests, false);
    rows.push({ plain: p, logged: await run(withLog, options.requests, true) });
  } else {
    const l = await run(withLog, options.requests, true);
    rows.push({ plain: await run(plain, options.requests, false), logged: l });
  }
}
await plain.close();
await withLog.close();
const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;
const plainUs = median(rows.map((r) => r.plain));
const loggedUs = median(rows.map((r) => r.logged));
console.log(
  options.flood
    ? "traffic: 90% one account's key refused with 429, 10% getPet of 1,000 keys"
    : "traffic: getPet of 1,000 keys",
);
console.log("round | plain µs/request | with log µs/request | added µs");
for (const [i, r] of rows.entries())
  console.log(
    `${i + 1} | ${r.plain.toFixed(2)} | ${r.logged.toFixed(2)} | ${(r.logged - r.plain).toFixed(2)}`,
  );
console.log(
  `median: plain ${plainUs.toFixed(2)} µs, with log ${loggedUs.toFixed(2)} µs, added ${(loggedUs - plainUs).toFixed(2)} µs per request`,
);
