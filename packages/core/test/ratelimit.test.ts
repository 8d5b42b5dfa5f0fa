/**
 * Behaviour suite of the rate limiter (docs/contract.md section 3), run against the memory store, a real Redis at
 * 127.0.0.1:6379 and the Upstash REST store (through a local REST bridge to the same Redis).
 */
import { randomUUID } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis as UpstashRedis } from "@upstash/redis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createMemoryStore,
  createRateLimiter,
  createRedisStore,
  createUpstashStore,
  type RateLimitConfig,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitStore,
  type StoreKind,
} from "../src/ratelimit/index.ts";
import { deleteKeys, REDIS_URL, startUpstashBridge } from "../src/testing/rate-limit-stores.ts";
import { sleep } from "../src/testing/wait.ts";
import { DAY_MS } from "../src/utc-day.ts";

/** Where each test of the stores starts (Date is frozen there). */
const START = Date.UTC(2031, 2, 10, 12, 0, 30);
const RUN = `rltest:${process.pid}:${randomUUID().slice(0, 8)}`;
const silent = { warn() {}, error() {} };

const baseConfig = (kind: StoreKind, prefix: string): RateLimitConfig => ({
  enabled: true,
  store:
    kind === "redis"
      ? { kind, url: REDIS_URL }
      : kind === "upstash"
        ? { kind, url: "http://127.0.0.1", token: "t" }
        : { kind: "memory" },
  prefix,
  // Generous, so that a busy machine never turns 200 concurrent checks into fail-open answers; the tests of
  // timeouts set their own.
  storeTimeoutMs: 5000,
  breaker: { failures: 3, cooldownMs: 5000 },
  anonymousPerMinute: 3,
  dashboardAnonymousPerMinute: 3,
  metricsScrapesPerMinute: 3,
  anonymousRefusalDelayMs: 0,
  ban: { threshold: 1000, windowSeconds: 600, baseSeconds: 900 },
});

interface Backend {
  kind: StoreKind;
  open(): Promise<{ store: RateLimitStore; close(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    kind: "memory",
    async open() {
      const store = createMemoryStore();
      return { store, close: () => store.close() };
    },
  },
  {
    kind: "redis",
    async open() {
      const store = createRedisStore(REDIS_URL, { timeoutMs: 5000 });
      await store.ready();
      return { store, close: () => store.close() };
    },
  },
  {
    kind: "upstash",
    async open() {
      const bridge = await startUpstashBridge();
      const store = createUpstashStore(bridge.url, bridge.token);
      return {
        store,
        async close() {
          await store.close();
          await bridge.close();
        },
      };
    },
  },
];

describe.each(backends)("rate limiter on the $kind store", ({ kind, open }) => {
  const prefix = `${RUN}:${kind}`;
  let opened: Awaited<ReturnType<Backend["open"]>>;
  const limiters: RateLimiter[] = [];

  beforeAll(async () => {
    opened = await open();
  });
  // The windows' clock is Date (the counting engine reads it): frozen 30 s into a minute at noon UTC, so that no
  // test crosses a window's end unless it moves the clock. Timers stay real: store timeouts and holds take their time.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: START });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(limiters.splice(0).map((l) => l.close()));
  });
  afterAll(async () => {
    await opened?.close();
    if (kind !== "memory") await deleteKeys(prefix);
  });

  const make = (
    over: Partial<RateLimitConfig> = {},
    extra: Omit<Partial<RateLimiterOptions>, "config"> = {},
  ): RateLimiter => {
    const limiter = createRateLimiter({
      config: { ...baseConfig(kind, prefix), ...over },
      logger: silent,
      store: opened.store,
      ...extra,
    });
    limiters.push(limiter);
    return limiter;
  };

  it("admits exactly the limit out of 200 concurrent checks", async () => {
    const limiter = make();
    const keyId = randomUUID();
    const decisions = await Promise.all(
      Array.from({ length: 200 }, () => limiter.checkKey({ keyId, perMinute: 60, perDay: 1000 })),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    const denied = decisions.filter((d) => !d.allowed);
    expect(denied).toHaveLength(140);
    expect(new Set(denied.map((d) => d.code))).toEqual(new Set(["rate_limited"]));
    // The 140 denied requests did not consume the day budget.
    const next = await limiter.checkKey({ keyId, perMinute: 60, perDay: 1000 });
    expect(next.allowed).toBe(false);
    expect(next.windows.find((w) => w.name === "day")?.remaining).toBe(940);
  });

  it("counts remaining down to 0 and then denies, reporting the minute window", async () => {
    const limiter = make();
    const keyId = randomUUID();
    const remaining: (number | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await limiter.checkKey({ keyId, perMinute: 5, perDay: 100 });
      expect(d.allowed).toBe(true);
      remaining.push(d.reported?.remaining);
      expect(d.reported?.limit).toBe(5);
      expect(d.windows.map((w) => [w.name, w.limit, w.windowSeconds])).toEqual([
        ["minute", 5, 60],
        ["day", 100, 86400],
      ]);
      expect(d.retryAfterSeconds).toBeUndefined();
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const denied = await limiter.checkKey({ keyId, perMinute: 5, perDay: 100 });
    expect(denied).toMatchObject({
      allowed: false,
      code: "rate_limited",
      reported: { name: "minute", remaining: 0 },
    });
    expect(denied.windows.map((w) => w.remaining)).toEqual([0, 95]);
  });

  it("reports reset and Retry-After at the end of the denying window", async () => {
    const limiter = make();
    const keyId = randomUUID();
    await limiter.checkKey({ keyId, perMinute: 1, perDay: 100 });
    const d = await limiter.checkKey({ keyId, perMinute: 1, perDay: 100 });
    const minuteEnd = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    expect(d.reported).toMatchObject({ name: "minute", remaining: 0, resetMs: minuteEnd });
    const retry = d.retryAfterSeconds;
    expect(retry).toBe(Math.ceil((minuteEnd - d.at) / 1000));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(d.windows.find((w) => w.name === "minute")).toMatchObject({ remaining: 0, resetMs: minuteEnd });
    const dayEnd = (Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS;
    expect(d.windows.find((w) => w.name === "day")?.resetMs).toBe(dayEnd);
  });

  it("enforces a small per-day limit; a day denial does not consume the minute window", async () => {
    const limiter = make();
    const keyId = randomUUID();
    for (let i = 0; i < 3; i++)
      expect((await limiter.checkKey({ keyId, perMinute: 100, perDay: 3 })).allowed).toBe(true);
    const d = await limiter.checkKey({ keyId, perMinute: 100, perDay: 3 });
    expect(d).toMatchObject({
      allowed: false,
      code: "rate_limited",
      reported: { name: "day", remaining: 0, limit: 3 },
    });
    const dayEnd = (Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS;
    expect(d.reported?.resetMs).toBe(dayEnd);
    expect(d.retryAfterSeconds).toBe(Math.ceil((dayEnd - d.at) / 1000));
    await limiter.checkKey({ keyId, perMinute: 100, perDay: 3 });
    const again = await limiter.checkKey({ keyId, perMinute: 100, perDay: 3 });
    expect(again.windows.find((w) => w.name === "minute")?.remaining).toBe(97);
  });

  it("resets the minute window at its end; minute denials do not consume the day", async () => {
    const limiter = make({}, { minuteWindowMs: 1000 });
    const keyId = randomUUID();
    const limits = { keyId, perMinute: 2, perDay: 100 };
    expect((await limiter.checkKey(limits)).allowed).toBe(true);
    expect((await limiter.checkKey(limits)).allowed).toBe(true);
    for (let i = 0; i < 3; i++) {
      const d = await limiter.checkKey(limits);
      expect(d).toMatchObject({ allowed: false, reported: { name: "minute" } });
      expect(d.windows.find((w) => w.name === "day")?.remaining).toBe(98);
      expect(d.windows.map((w) => [w.limit, w.windowSeconds])).toEqual([
        [2, 1],
        [100, 86400],
      ]);
    }
    vi.setSystemTime(Date.now() + 1000); // the next 1 s "minute"
    const d = await limiter.checkKey(limits);
    expect(d.allowed).toBe(true);
    expect(d.windows.map((w) => w.remaining)).toEqual([1, 97]);
  });

  it("limits anonymous requests per client IP", async () => {
    const limiter = make();
    const ip = `10.${Math.floor(Math.random() * 255)}.0.1-${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await limiter.checkAnonymous(ip)).allowed).toBe(true);
    const d = await limiter.checkAnonymous(ip);
    expect(d).toMatchObject({ allowed: false, code: "rate_limited" });
    expect(d.windows.map((w) => [w.name, w.limit, w.windowSeconds])).toEqual([["minute", 3, 60]]);
    expect(d.reported?.limit).toBe(3);
    expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await limiter.checkAnonymous(`${ip}-other`)).allowed).toBe(true);
  });

  it("refuses an address whose budget is used up from memory until its window ends, even while the store fails", async () => {
    let storeDown = false;
    const failing = new Proxy(opened.store, {
      get(target, property) {
        if (storeDown && property === "evalsha") return () => Promise.reject(new Error("store down"));
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const limiter = make({}, { store: failing });
    const ip = `10.9.0.1-${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await limiter.checkAnonymous(ip)).allowed).toBe(true);
    expect((await limiter.checkAnonymous(ip)).code).toBe("rate_limited");

    storeDown = true;
    const refused = await limiter.checkAnonymous(ip);
    expect(refused).toMatchObject({ allowed: false, code: "rate_limited" });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Another address has nothing refused in memory: its check needs the store, and fails open.
    expect(await limiter.checkAnonymous(`${ip}-other`)).toMatchObject({ allowed: true, degraded: true });
    expect(limiter.metrics().storeFailures).toBe(1);
  });

  it("holds an anonymous refusal for the delay (never past its window), an admitted check not at all", async () => {
    const limiter = make({ anonymousRefusalDelayMs: 1000 });
    const ip = `10.8.0.1-${randomUUID()}`;
    const timed = async (decision: RateLimitDecision) => {
      const started = performance.now();
      await limiter.holdRefusal(decision);
      return performance.now() - started;
    };
    const admitted = await limiter.checkAnonymous(ip);
    // Bounds far from the 1 s hold, so that a busy machine's late timers cannot blur them.
    expect(await timed(admitted)).toBeLessThan(250);
    for (let i = 0; i < 2; i++) await limiter.checkAnonymous(ip);
    const refused = await limiter.checkAnonymous(ip);
    expect(refused.allowed).toBe(false);
    const holds = await Promise.all([timed(refused), timed(refused)]);
    for (const ms of holds) expect(ms).toBeGreaterThanOrEqual(990);
    // A refusal whose window ends sooner is held only until then.
    const window = refused.reported;
    if (!window) throw new Error("a refusal reports its window");
    const endingSoon = { ...refused, reported: { ...window, resetMs: Date.now() + 60 } };
    expect(await timed(endingSoon)).toBeLessThan(700);
    expect(limiter.metrics().heldRefusals).toBe(0);
  });

  it("bans after more than `threshold` denials, shares the ban across instances, and unbans", async () => {
    const bansSeen: { keyId: string; until: Date; banNumber: number }[] = [];
    const ban = { threshold: 3, windowSeconds: 600, baseSeconds: 900 };
    const limiter = make(
      { ban },
      { onBan: (keyId, until, info) => void bansSeen.push({ keyId, until, ...info }) },
    );
    const other = make({ ban });
    const keyId = randomUUID();
    const limits = { keyId, perMinute: 1, perDay: 100 };
    expect((await limiter.checkKey(limits)).allowed).toBe(true);
    for (let i = 0; i < 3; i++) expect((await limiter.checkKey(limits)).code).toBe("rate_limited");
    const t0 = Date.now();
    const fourth = await limiter.checkKey(limits);
    expect(fourth.code).toBe("key_banned");
    expect(bansSeen).toHaveLength(1);
    expect(bansSeen[0]?.banNumber).toBe(1);
    expect(Math.abs((bansSeen[0]?.until.getTime() ?? 0) - (t0 + 900_000))).toBeLessThan(2_000);

    const d = await limiter.checkKey(limits);
    expect(d).toMatchObject({ allowed: false, code: "key_banned" });
    expect(d.retryAfterSeconds).toBeGreaterThan(895);
    expect((await other.checkKey(limits)).code).toBe("key_banned");
    expect((await other.isBanned(keyId))?.getTime()).toBe(bansSeen[0]?.until.getTime());

    await limiter.unban(keyId);
    expect(await limiter.isBanned(keyId)).toBeNull();
    const after = await limiter.checkKey(limits);
    expect(after.code).toBe("rate_limited");
    // What GET /metrics reports as decisions: 1 admitted, 4 rate_limited, 2 banned.
    expect(limiter.metrics()).toMatchObject({ checks: 7, admitted: 1, denied: 6, banned: 2, bans: 1 });
  });

  it("applies a ban issued on another instance at once, even while the key's windows have room", async () => {
    const ban = { threshold: 1, windowSeconds: 600, baseSeconds: 900 };
    const issuer = make({ ban });
    const other = make({ ban });
    const keyId = randomUUID();
    // The same key's counters, checked against different limits: the issuer's are used up, the other's are not.
    const roomy = { keyId, perMinute: 100, perDay: 1000 };
    const tight = { keyId, perMinute: 1, perDay: 1000 };
    expect((await other.checkKey(roomy)).allowed).toBe(true);
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 4 && codes.at(-1) !== "key_banned"; i++)
      codes.push((await issuer.checkKey(tight)).code);
    expect(codes.at(-1)).toBe("key_banned");
    // Every check's script reads the ban: the other instance's next request finds it.
    expect((await other.checkKey(roomy)).code).toBe("key_banned");
  });

  it("doubles the ban for each further ban on the same UTC day and starts over the next day", async () => {
    let clock = Date.now();
    const durations: number[] = [];
    const limiter = make(
      { ban: { threshold: 1, windowSeconds: 600, baseSeconds: 60 } },
      { now: () => clock, onBan: (_k, _u, info) => void durations.push(info.durationSeconds) },
    );
    const keyId = randomUUID();
    const limits = { keyId, perMinute: 1, perDay: 1000 };
    const provokeBan = async () => {
      for (let i = 0; i < 5; i++) {
        const d = await limiter.checkKey(limits);
        if (d.code === "key_banned") return d;
      }
      throw new Error("no ban");
    };
    await limiter.checkKey(limits);
    expect((await provokeBan()).retryAfterSeconds).toBe(60);
    await limiter.unban(keyId);
    expect((await provokeBan()).retryAfterSeconds).toBe(120);
    clock += 121_000; // the second ban ends on its own
    expect((await limiter.checkKey(limits)).code).toBe("rate_limited");
    expect((await provokeBan()).retryAfterSeconds).toBe(240);
    clock += DAY_MS; // next UTC day: back to the base duration
    expect((await provokeBan()).retryAfterSeconds).toBe(60);
    expect(durations).toEqual([60, 120, 240, 60]);
  });

  it("counts together with @upstash/ratelimit's own fixedWindow on the same counters (a rolling upgrade)", async () => {
    const limiter = make();
    const keyId = randomUUID();
    const limits = { keyId, perMinute: 10, perDay: 100 };
    // How the previous release counted a key's windows: one engine per window, its built-in fixedWindow.
    const window = (name: string, limit: number, ms: number) =>
      new Ratelimit({
        redis: opened.store as unknown as UpstashRedis,
        limiter: Ratelimit.fixedWindow(limit, `${ms} ms`),
        prefix: `${prefix}:rl:${name}`,
        ephemeralCache: false,
        analytics: false,
        enableTelemetry: false,
      });
    const minute = window("min", 10, 60_000);
    const day = window("day", 100, DAY_MS);
    for (let i = 0; i < 3; i++) await Promise.all([minute.limit(keyId), day.limit(keyId)]);
    expect((await limiter.checkKey(limits)).windows.map((w) => w.remaining)).toEqual([6, 96]);
    const [m, d] = await Promise.all([minute.limit(keyId), day.limit(keyId)]);
    expect([m.remaining, d.remaining]).toEqual([5, 95]);
  });

  it("resetUsage frees the current windows", async () => {
    const limiter = make();
    const keyId = randomUUID();
    const limits = { keyId, perMinute: 2, perDay: 2 };
    await limiter.checkKey(limits);
    await limiter.checkKey(limits);
    expect((await limiter.checkKey(limits)).allowed).toBe(false);
    await limiter.resetUsage(keyId);
    const d = await limiter.checkKey(limits);
    expect(d.allowed).toBe(true);
    expect(d.windows.map((w) => w.remaining)).toEqual([1, 1]);
  });

  it("reports health", async () => {
    expect(await make().health()).toEqual({ store: kind, ok: true, breaker: "closed" });
  });

  /** The shared store, counting the scripts run through it (each key check is one). */
  const countingScripts = () => {
    const counted = { scripts: 0 };
    const store: RateLimitStore = {
      ...opened.store,
      evalsha: (sha, keys, args) => {
        counted.scripts++;
        return opened.store.evalsha(sha, keys, args);
      },
      eval: (script, keys, args) => {
        counted.scripts++;
        return opened.store.eval(script, keys, args);
      },
    };
    return { store, counted };
  };

  it("counts a key's concurrent checks with one script, in arrival order", async () => {
    const { store, counted } = countingScripts();
    const limiter = make({}, { store });
    const limits = { keyId: randomUUID(), perMinute: 100, perDay: 1000 };
    expect((await limiter.checkKey(limits)).windows.map((w) => w.remaining)).toEqual([99, 999]);
    counted.scripts = 0;
    const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.checkKey(limits)));
    expect(counted.scripts).toBe(1);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    // Exactly what 20 requests made one after another would have been told.
    expect(decisions.map((d) => d.reported?.remaining)).toEqual(Array.from({ length: 20 }, (_, i) => 98 - i));
    expect(decisions.map((d) => d.windows[1]?.remaining)).toEqual(
      Array.from({ length: 20 }, (_, i) => 998 - i),
    );
    expect((await limiter.checkKey(limits)).windows.map((w) => w.remaining)).toEqual([78, 978]);
    expect(limiter.metrics()).toMatchObject({ checks: 22, admitted: 22, denied: 0 });
  });

  it("counts a group that no longer fits one by one: another instance used the room, exactly the limit passes", async () => {
    const { store, counted } = countingScripts();
    const here = make({}, { store });
    const elsewhere = make();
    const limits = { keyId: randomUUID(), perMinute: 10, perDay: 100 };
    expect((await here.checkKey(limits)).allowed).toBe(true); // here: 9 left
    for (let i = 0; i < 8; i++) expect((await elsewhere.checkKey(limits)).allowed).toBe(true); // 1 left
    counted.scripts = 0;
    const decisions = await Promise.all(Array.from({ length: 5 }, () => here.checkKey(limits)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(1);
    expect(decisions.filter((d) => !d.allowed).map((d) => d.reported?.name)).toEqual(Array(4).fill("minute"));
    // The group's script (which gives its count back), then each request's (a denial's bookkeeping included).
    expect(counted.scripts).toBe(1 + 5);
    // Neither the group's count nor the denied requests used any budget: 10 admitted in all.
    const next = await elsewhere.checkKey(limits);
    expect(next.allowed).toBe(false);
    expect(next.windows.find((w) => w.name === "day")?.remaining).toBe(90);
  });

  it("answers a group that finds a ban key_banned and counts none of it", async () => {
    const ban = { threshold: 1, windowSeconds: 600, baseSeconds: 900 };
    const limiter = make({ ban });
    const issuer = make({ ban });
    const keyId = randomUUID();
    const roomy = { keyId, perMinute: 100, perDay: 1000 };
    const tight = { keyId, perMinute: 2, perDay: 1000 };
    expect((await limiter.checkKey(roomy)).allowed).toBe(true); // knows the room: 99
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 5 && codes.at(-1) !== "key_banned"; i++)
      codes.push((await issuer.checkKey(tight)).code);
    expect(codes.at(-1)).toBe("key_banned");
    const decisions = await Promise.all(Array.from({ length: 6 }, () => limiter.checkKey(roomy)));
    expect(decisions.map((d) => d.code)).toEqual(Array(6).fill("key_banned"));
    await limiter.unban(keyId);
    // Its first request, the issuer's one admitted (the counters are the key's) and this one: the group's 6 counted
    // nothing.
    expect((await limiter.checkKey(roomy)).windows.map((w) => w.remaining)).toEqual([97, 997]);
  });

  describe("the monthly quota", () => {
    const monthEnd = (y: number, m: number) => Date.UTC(y, m + 1, 1);

    it("counts the UTC calendar month in the same script, answers quota_exceeded with Retry-After to the month's end, and starts over on the 1st", async () => {
      const { store, counted } = countingScripts();
      const limiter = make({}, { store });
      const limits = { keyId: randomUUID(), perMinute: 100, perDay: 1000, perMonth: 3 };
      // 1.5 s before April: the last second of March.
      vi.setSystemTime(Date.UTC(2031, 3, 1) - 1500);
      const first = await limiter.checkKey(limits);
      expect(first.windows.map((w) => [w.name, w.limit, w.remaining, w.resetMs, w.windowSeconds])).toEqual([
        ["minute", 100, 99, Date.UTC(2031, 3, 1), 60],
        ["day", 1000, 999, Date.UTC(2031, 3, 1), 86400],
        ["month", 3, 2, monthEnd(2031, 2), 31 * 86400],
      ]);
      // One script per check, the month included (the first may load the script: EVALSHA, then EVAL).
      counted.scripts = 0;
      await limiter.checkKey(limits);
      expect(counted.scripts).toBe(1);
      expect((await limiter.checkKey(limits)).allowed).toBe(true);
      const denied = await limiter.checkKey(limits);
      expect(denied).toMatchObject({
        allowed: false,
        code: "quota_exceeded",
        reported: { name: "month", limit: 3, remaining: 0, resetMs: Date.UTC(2031, 3, 1) },
        retryAfterSeconds: 2,
      });
      // A refusal of the month takes nothing from the minute or the day.
      expect(denied.windows.map((w) => w.remaining)).toEqual([97, 997, 0]);
      vi.setSystemTime(Date.UTC(2031, 3, 1) + 500);
      const april = await limiter.checkKey(limits);
      expect(april.allowed).toBe(true);
      expect(april.windows.find((w) => w.name === "month")).toMatchObject({
        remaining: 2,
        resetMs: monthEnd(2031, 3),
        windowSeconds: 30 * 86400,
      });
    });

    it("reports the minute when it denies before the quota runs out, and the month when both deny", async () => {
      const limiter = make();
      const keyId = randomUUID();
      await limiter.checkKey({ keyId, perMinute: 1, perDay: 100, perMonth: 10 });
      const minute = await limiter.checkKey({ keyId, perMinute: 1, perDay: 100, perMonth: 10 });
      expect(minute).toMatchObject({ code: "rate_limited", reported: { name: "minute" } });
      const both = await limiter.checkKey({ keyId, perMinute: 1, perDay: 100, perMonth: 1 });
      expect(both).toMatchObject({ code: "quota_exceeded", reported: { name: "month" } });
      expect(both.retryAfterSeconds).toBe(Math.ceil((monthEnd(2031, 2) - both.at) / 1000));
    });

    it("admits exactly the quota across two instances on one store", async () => {
      const a = make();
      const b = make();
      const limits = { keyId: randomUUID(), perMinute: 1000, perDay: 1000, perMonth: 37 };
      const decisions = await Promise.all(
        Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).checkKey(limits)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(37);
      expect(new Set(decisions.filter((d) => !d.allowed).map((d) => d.code))).toEqual(
        new Set(["quota_exceeded"]),
      );
      // Refusals consumed nothing: 37 of the day are used.
      const next = await a.checkKey({ ...limits, perMonth: 1000 });
      expect(next.windows.map((w) => w.remaining)).toEqual([962, 962, 962]);
    });

    it("keeps the month's count when the quota changes, and counts no month without one", async () => {
      const limiter = make();
      const keyId = randomUUID();
      for (let i = 0; i < 4; i++)
        await limiter.checkKey({ keyId, perMinute: 100, perDay: 100, perMonth: 50 });
      expect(
        (await limiter.checkKey({ keyId, perMinute: 100, perDay: 100 })).windows.map((w) => w.name),
      ).toEqual(["minute", "day"]);
      const raised = await limiter.checkKey({ keyId, perMinute: 100, perDay: 100, perMonth: 500 });
      expect(raised.windows.find((w) => w.name === "month")?.remaining).toBe(495);
    });
  });
});

describe("rate limiter when the store fails", () => {
  const logs: { level: string; obj: object; msg?: string }[] = [];
  const logger = {
    warn: (obj: object, msg?: string) => void logs.push({ level: "warn", obj, msg }),
    error: (obj: object, msg?: string) => void logs.push({ level: "error", obj, msg }),
  };

  it("fails open quickly when Redis refuses connections, logs once, counts failures, then fails fast", async () => {
    const limiter = createRateLimiter({
      config: {
        ...baseConfig("redis", `${RUN}:down`),
        store: { kind: "redis", url: "redis://127.0.0.1:6390" },
      },
      logger,
    });
    try {
      const t0 = Date.now();
      const d = await limiter.checkKey({ keyId: "k", perMinute: 60, perDay: 1000 });
      expect(Date.now() - t0).toBeLessThan(1200);
      expect(d).toMatchObject({ allowed: true, degraded: true });
      expect(d.reported?.limit).toBe(60);
      expect(d.reported?.resetMs).toBeGreaterThan(Date.now());
      await sleep(300); // let ioredis attempt a reconnect
      for (let i = 0; i < 5; i++) {
        const t = Date.now();
        expect((await limiter.checkAnonymous("1.2.3.4")).allowed).toBe(true);
        expect(Date.now() - t).toBeLessThan(1200);
      }
      // Three failures open the breaker: the other checks fail open without calling the store.
      expect(limiter.metrics()).toMatchObject({ storeFailures: 3, failOpen: 6 });
      expect(await limiter.health()).toEqual({ store: "redis", ok: false, breaker: "open" });
      // One line for the failures (at most one a minute) and one for the breaker opening.
      expect(logs.filter((l) => l.level === "warn")).toHaveLength(2);
    } finally {
      await limiter.close();
    }
  });

  it("fails open after storeTimeoutMs when the store hangs", async () => {
    const hang = () => new Promise<never>(() => {});
    const store: RateLimitStore = {
      kind: "redis",
      evalsha: hang,
      eval: hang,
      get: hang,
      set: hang,
      del: hang,
      ping: hang,
      ready: async () => {},
      close: async () => {},
    };
    const limiter = createRateLimiter({
      config: { ...baseConfig("redis", `${RUN}:hang`), storeTimeoutMs: 200 },
      logger: silent,
      store,
    });
    const t0 = Date.now();
    const d = await limiter.checkKey({ keyId: "k", perMinute: 60, perDay: 1000 });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(190);
    expect(took).toBeLessThan(600);
    expect(d).toMatchObject({ allowed: true, degraded: true });
    expect(limiter.metrics().storeFailures).toBe(1);
    expect(await limiter.health()).toEqual({ store: "redis", ok: false, breaker: "closed" });
    await limiter.close();
  });

  it("stops waiting for a store that hangs: after three timeouts checks fail open at once, the connection is replaced, and a probe closes it again", async () => {
    let answering = false;
    let reconnects = 0;
    const memory = createMemoryStore();
    const hang = () => new Promise<never>(() => {});
    const store: RateLimitStore = {
      ...memory,
      kind: "redis",
      evalsha: (...args) => (answering ? memory.evalsha(...args) : hang()),
      eval: (...args) => (answering ? memory.eval(...args) : hang()),
      get: (key) => (answering ? memory.get(key) : hang()),
      ping: () => (answering ? memory.ping() : hang()),
      reconnect: () => {
        reconnects++;
      },
    };
    const limiter = createRateLimiter({
      config: {
        ...baseConfig("redis", `${RUN}:breaker`),
        storeTimeoutMs: 200,
        breaker: { failures: 3, cooldownMs: 500 },
      },
      logger: silent,
      store,
    });
    const check = async () => {
      const t = Date.now();
      const decision = await limiter.checkKey({ keyId: "k", perMinute: 60, perDay: 1000 });
      return { decision, ms: Date.now() - t };
    };
    try {
      for (let i = 0; i < 3; i++) expect((await check()).ms).toBeGreaterThanOrEqual(190);
      expect(reconnects).toBe(1);
      // Open: no waiting at all, however many checks.
      const fast = await Promise.all(Array.from({ length: 50 }, check));
      for (const { decision, ms } of fast) {
        expect(decision).toMatchObject({ allowed: true, degraded: true });
        expect(ms).toBeLessThan(150);
      }
      expect(limiter.metrics()).toMatchObject({ storeFailures: 3, failOpen: 53 });
      await sleep(550);
      // Half-open: the limiter's own probe is out (and waits for the store); checks do not wait for it.
      const beside = await Promise.all([check(), check()]);
      for (const { ms } of beside) expect(ms).toBeLessThan(150);
      expect((await limiter.health()).breaker).not.toBe("closed");
      answering = true;
      // No request needed: the next probe finds the store answering and closes the breaker.
      for (let i = 0; i < 30 && (await limiter.health()).breaker !== "closed"; i++) await sleep(100);
      const healed = await check();
      expect(healed.decision).toMatchObject({ allowed: true });
      expect(healed.decision.degraded).toBeUndefined();
      expect((await check()).decision.windows[0]?.remaining).toBe(58);
      expect((await limiter.health()).breaker).toBe("closed");
    } finally {
      await limiter.close();
    }
  });

  it("fails open when the Upstash REST endpoint is unreachable", async () => {
    const limiter = createRateLimiter({
      config: baseConfig("upstash", `${RUN}:updown`),
      logger: silent,
      store: createUpstashStore("http://127.0.0.1:6391", "t"),
    });
    const t0 = Date.now();
    const d = await limiter.checkKey({ keyId: "k", perMinute: 60, perDay: 1000 });
    expect(Date.now() - t0).toBeLessThan(1200);
    expect(d).toMatchObject({ allowed: true, degraded: true });
    expect(limiter.metrics().storeFailures).toBe(1);
    await limiter.close();
  });
});

describe("rate limiter disabled", () => {
  it("admits everything and reports no window", async () => {
    const limiter = createRateLimiter({
      config: { ...baseConfig("memory", "x"), enabled: false },
      logger: silent,
    });
    for (let i = 0; i < 5; i++) {
      const d = await limiter.checkKey({ keyId: "k", perMinute: 1, perDay: 1 });
      expect(d.allowed).toBe(true);
      expect(d.windows).toEqual([]);
      expect(d.reported).toBeUndefined();
    }
    expect((await limiter.checkAnonymous("1.1.1.1")).windows).toEqual([]);
    expect(await limiter.health()).toEqual({ store: "memory", ok: true, breaker: "closed" });
    await limiter.close();
  });
});

describe("latency on Redis", () => {
  it("measures per-check latency of an admitted request", async () => {
    const store = createRedisStore(REDIS_URL, { timeoutMs: 1000 });
    await store.ready();
    const prefix = `${RUN}:bench`;
    const limiter = createRateLimiter({ config: baseConfig("redis", prefix), logger: silent, store });
    try {
      const times: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const t = performance.now();
        const d = await limiter.checkKey({ keyId: `bench-${i % 50}`, perMinute: 100_000, perDay: 1_000_000 });
        times.push(performance.now() - t);
        expect(d.allowed).toBe(true);
      }
      times.sort((a, b) => a - b);
      const pct = (p: number) => times[Math.floor(times.length * p)]?.toFixed(3);
      console.log(
        `rate-limit checkKey on Redis: median ${pct(0.5)} ms, p90 ${pct(0.9)} ms, p99 ${pct(0.99)} ms`,
      );
      expect(Number(pct(0.5))).toBeLessThan(20);
    } finally {
      await limiter.close();
      await store.close();
      await deleteKeys(prefix);
    }
  });
});
