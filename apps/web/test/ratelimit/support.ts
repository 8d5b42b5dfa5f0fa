/**
 * Helpers of the REST-level rate-limit suites (docs/contract.md section 3; docs/interface.md "Limits"): the stores
 * as server environments (memory; Redis with a key prefix per server, deleted afterwards), a server per describe
 * block, requests (in-process by default, harness.ts) that record when they were sent, and the parsed,
 * cross-checked rate-limit headers. The Upstash REST store is covered store by store in packages/core
 * (test/ratelimit.test.ts, through a local bridge to Redis): nothing over HTTP depends on which store counts.
 */
import { randomUUID } from "node:crypto";
import { deleteKeys } from "@petstore/core/testing";
import { afterAll, beforeAll, expect, vi } from "vitest";
import { type PathFetch, startTestServer, type TestServer } from "../support/harness.ts";
import { OpenApiResponseValidator } from "../support/openapi-validator.ts";

export { clearOfBoundary, deleteKeys, sleep } from "@petstore/core/testing";

export type StoreKind = "memory" | "redis";
export const STORE_KINDS: StoreKind[] = ["memory", "redis"];
export const REDIS_URL = "redis://127.0.0.1:6379";
/** Redis key prefix of this test run; each server gets `<RUN_PREFIX>:<name>`, deleted when it closes. */
export const RUN_PREFIX = `petstore-test:web-rl:${process.pid}:${randomUUID().slice(0, 8)}`;
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** A frozen instant 10 s into a minute at noon UTC of the current day, far from minute and day boundaries. */
export const frozenNoon = () => Math.floor(Date.now() / DAY_MS) * DAY_MS + 12 * 3_600_000 + 10_000;

/**
 * Freezes `Date` (only `Date`: timers run) at `ms`, the clock of the window buckets (`Date.now()` inside the
 * limiter) and of the harness runtime (its clock follows `Date` unless set); `vi.useRealTimers()` thaws it.
 * @returns `ms`
 */
export function freezeAt(ms: number): number {
  vi.useFakeTimers({ toFake: ["Date"], now: ms });
  return ms;
}

export interface StoreHandle {
  /** Environment selecting the store (passed to loadConfig). */
  env: Record<string, string>;
  /** Deletes the store's keys; call after the server is closed. */
  close(): Promise<void>;
}

/** Prepares `kind` for one server named `name` (unique within the run). */
export async function openStore(kind: StoreKind, name: string): Promise<StoreHandle> {
  const prefix = `${RUN_PREFIX}:${name}`;
  if (kind === "memory") return { env: {}, close: async () => {} };
  return { env: { REDIS_URL, RATE_LIMIT_PREFIX: prefix }, close: () => deleteKeys(prefix) };
}

export type OperationId = "listPets" | "createPet" | "getPet";

export interface RequestOptions {
  /** API key sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Raw Authorization header (instead of `key`). */
  authorization?: string;
  /** X-Forwarded-For header. */
  forwardedFor?: string;
  method?: string;
  body?: unknown;
  /** Operation to validate the response against (the served OpenAPI document); null for none. */
  op?: OperationId | null;
  /** Over the socket (for what depends on it: its peer address) instead of in-process. */
  socket?: boolean;
}

/** Parsed rate-limit headers of one response. */
export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  /** X-RateLimit-Reset, Unix seconds. */
  reset: number;
  retryAfter: number | null;
  /** RateLimit-Policy by window name: quota and window seconds. */
  policy: Record<string, { q: number; w: number }>;
  /** RateLimit by window name: remaining and seconds left. */
  windows: Record<string, { r: number; t: number }>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: { code?: string; message?: string; status?: number } & Record<string, unknown>;
  /** Clock readings (Unix ms) just before sending and just after the answer. */
  sentAt: number;
  doneAt: number;
  rl: RateLimitHeaders;
}

const int = (v: string | null, name: string): number => {
  expect(v, `header ${name}`).toMatch(/^[0-9]+$/);
  return Number(v);
};

const params = (item: string): Record<string, string> =>
  Object.fromEntries(
    item
      .split(";")
      .slice(1)
      .map((p) => p.trim().split("=") as [string, string]),
  );

/** Parses the rate-limit headers (they must all be present and well-formed). */
export function parseRateLimit(h: Headers): RateLimitHeaders {
  const policy: RateLimitHeaders["policy"] = {};
  const windows: RateLimitHeaders["windows"] = {};
  const name = (item: string) => /^\s*"([a-z]+)"/.exec(item)?.[1] ?? "?";
  for (const item of (h.get("ratelimit-policy") ?? "").split(",")) {
    const p = params(item);
    policy[name(item)] = { q: Number(p.q), w: Number(p.w) };
  }
  for (const item of (h.get("ratelimit") ?? "").split(",")) {
    const p = params(item);
    windows[name(item)] = { r: Number(p.r), t: Number(p.t) };
  }
  const retry = h.get("retry-after");
  return {
    limit: int(h.get("x-ratelimit-limit"), "X-RateLimit-Limit"),
    remaining: int(h.get("x-ratelimit-remaining"), "X-RateLimit-Remaining"),
    reset: int(h.get("x-ratelimit-reset"), "X-RateLimit-Reset"),
    retryAfter: retry === null ? null : int(retry, "Retry-After"),
    policy,
    windows,
  };
}

/** Unix seconds at which the `windowMs` window containing `ms` ends (windows are epoch-aligned). */
export const windowEndSeconds = (ms: number, windowMs: number) =>
  ((Math.floor(ms / windowMs) + 1) * windowMs) / 1000;

/** Unix ms of 00:00 UTC on the 1st of the month after the one containing `ms`. */
export const monthEndMs = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/**
 * The header invariants of every /v1 response: RateLimit-Policy and RateLimit name the same windows;
 * X-RateLimit-* describe one of them (`window`, default: the one matching limit and remaining); Reset is the
 * end of that window; its `t` and Retry-After are the whole seconds from the request to Reset; Retry-After
 * (>= 1) exactly on 429. While banned: every window has 0 left until the ban ends, and Reset, `t` and
 * Retry-After point there; `banEndMs` is the exact end (Unix ms), or `banReset` the end rounded up to seconds.
 */
export function expectConsistentHeaders(
  r: Reply,
  expected: { window?: string; banEndMs?: number; banReset?: number } = {},
): void {
  const { rl } = r;
  const banned = expected.banEndMs !== undefined || expected.banReset !== undefined;
  expect(Object.keys(rl.windows).sort()).toEqual(Object.keys(rl.policy).sort());
  for (const [name, { q, w }] of Object.entries(rl.policy)) {
    const win = rl.windows[name];
    expect(q).toBeGreaterThanOrEqual(1);
    expect(win?.r).toBeGreaterThanOrEqual(0);
    expect(win?.r).toBeLessThanOrEqual(banned ? 0 : q);
    expect(win?.t).toBeGreaterThanOrEqual(0);
    if (!banned) expect(win?.t).toBeLessThanOrEqual(w);
  }
  const name =
    expected.window ??
    Object.keys(rl.policy).find((n) => rl.policy[n]?.q === rl.limit && rl.windows[n]?.r === rl.remaining);
  expect(name, `a window matching X-RateLimit-* in ${JSON.stringify(rl)}`).toBeDefined();
  const policy = rl.policy[name as string];
  const win = rl.windows[name as string];
  expect(rl.limit).toBe(policy?.q);
  expect(rl.remaining).toBe(win?.r);
  // The exact instant (ms) the window or ban ends, and Reset (whole seconds, rounded up).
  let endMs: number;
  if (banned) {
    endMs = expected.banEndMs ?? (expected.banReset as number) * 1000;
    expect(rl.reset).toBe(Math.ceil(endMs / 1000));
  } else if (name === "month") {
    // The UTC calendar month: it ends at 00:00 UTC on the 1st of the next month, whatever its length.
    endMs = monthEndMs(r.sentAt);
    expect(monthEndMs(r.doneAt), "the request crossed a month's end").toBe(endMs);
    expect(rl.reset).toBe(endMs / 1000);
  } else {
    const windowMs = (policy?.w ?? 0) * 1000;
    endMs = windowEndSeconds(r.sentAt, windowMs) * 1000;
    expect(windowEndSeconds(r.doneAt, windowMs) * 1000, "the request crossed a window end").toBe(endMs);
    expect(rl.reset).toBe(endMs / 1000);
  }
  // Seconds left, ceil(end - at), for the decision instant `at` in [sentAt, doneAt]; a ban end known to the
  // second only (from Reset) widens the range by one.
  const lo = Math.ceil((endMs - r.doneAt) / 1000) - (expected.banReset === undefined ? 0 : 1);
  const hi = Math.ceil((endMs - r.sentAt) / 1000);
  expect(win?.t).toBeGreaterThanOrEqual(Math.max(0, lo));
  expect(win?.t).toBeLessThanOrEqual(Math.max(0, hi));
  if (r.status === 429) {
    expect(rl.retryAfter).toBe(Math.max(1, win?.t ?? 0));
  } else {
    expect(rl.retryAfter).toBeNull();
  }
}

export interface RlServer {
  s: TestServer;
  v: OpenApiResponseValidator;
  /** Issues a key (`enterprise` needs perMinute/perDay). */
  issue(
    plan?: "free" | "pro" | "business" | "enterprise",
    perMinute?: number,
    perDay?: number,
  ): Promise<{ id: string; key: string }>;
  /** Sends a request and parses the answer (validated against the OpenAPI document when `op` is given). */
  req(path: string, options?: RequestOptions): Promise<Reply>;
}

/** `s`'s fetch: in-process, or over the socket when `socket`. */
export const fetchOf =
  (s: TestServer, socket = false): PathFetch =>
  (path, init) =>
    socket ? fetch(`${s.baseUrl}${path}`, init) : s.fetch(path, init);

/**
 * Sends a request to `path` through `target` (a `PathFetch`, or a base URL to reach over the socket) and parses
 * the rate-limit headers.
 */
export async function send(
  target: PathFetch | string,
  path: string,
  o: RequestOptions = {},
): Promise<Omit<Reply, "rl"> & { rl: RateLimitHeaders | null; text: string }> {
  const fetcher: PathFetch = typeof target === "string" ? (p, init) => fetch(`${target}${p}`, init) : target;
  const headers: Record<string, string> = {};
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.authorization !== undefined) headers.authorization = o.authorization;
  if (o.forwardedFor) headers["x-forwarded-for"] = o.forwardedFor;
  if (o.body !== undefined) headers["content-type"] = "application/json";
  const sentAt = Date.now();
  const response = await fetcher(path, {
    method: o.method ?? "GET",
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await response.text();
  const doneAt = Date.now();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : {},
    text,
    sentAt,
    doneAt,
    rl: response.headers.has("x-ratelimit-limit") ? parseRateLimit(response.headers) : null,
  };
}

/**
 * Starts a PostgreSQL-backed test server on `kind`'s store for the describe block (closed after it), its
 * anonymous refusals answered at once (ANONYMOUS_REFUSAL_DELAY_MS=0: the hold has its own suite,
 * test/hardening/anonymous-floods.test.ts), `env` on top.
 */
export function useRateLimitServer(
  kind: StoreKind,
  name: string,
  env: Record<string, string> = {},
): RlServer {
  const ctx = {} as RlServer;
  let store: StoreHandle | undefined;
  beforeAll(async () => {
    store = await openStore(kind, name);
    const s = await startTestServer("postgres", {
      env: { ...store.env, ANONYMOUS_REFUSAL_DELAY_MS: "0", ...env },
    });
    ctx.s = s;
    // Fetched with the harness key, so that it costs the anonymous bucket of 127.0.0.1 nothing.
    const doc = await s.fetch("/v1/openapi.json", { headers: { authorization: `Bearer ${s.key}` } });
    ctx.v = new OpenApiResponseValidator((await doc.json()) as Record<string, unknown>);
  });
  afterAll(async () => {
    await ctx.s?.close();
    await store?.close();
  });
  ctx.issue = async (plan = "free", perMinute, perDay) => {
    const issued = await ctx.s.rt.apiKeys.create(
      {
        name: `rl-${randomUUID().slice(0, 8)}`,
        plan,
        ...(perMinute ? { perMinute } : {}),
        ...(perDay ? { perDay } : {}),
      },
      "test",
    );
    return { id: issued.id, key: issued.key };
  };
  ctx.req = async (path, o = {}) => {
    const r = await send(fetchOf(ctx.s, o.socket), path, o);
    expect(r.rl, `rate-limit headers on ${r.status} ${path}`).not.toBeNull();
    if (o.op)
      expect(ctx.v.check(o.op, new Response(null, { status: r.status, headers: r.headers }), r.text)).toEqual(
        [],
      );
    return r as Reply;
  };
  return ctx;
}
