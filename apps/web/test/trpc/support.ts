/**
 * tRPC harness (`openHarness`, `useHarness`): a test database with an admin and a staff user, a movable clock, and
 * callers invoking procedures in-process as the HTTP handler does (`createCaller` over a real session).
 */
import type { Clock, Operation, Outcome, Runtime } from "@petstore/core";
import { databaseOf } from "@petstore/core/testing";
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { afterAll, beforeAll, expect } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { readCookie, SESSION_COOKIE } from "../../src/server/trpc/cookies";
import { formatError } from "../../src/server/trpc/errors";
import { createCaller } from "../../src/server/trpc/router";
import { PASSWORD } from "../support/common.ts";
import { openTestDatabase, type TestDatabase } from "../support/database.ts";

export { PASSWORD };

/** PASSWORD_HASH_COST of the harness: scrypt at N = 2^10, so that creating and signing in users costs little. */
export const TEST_PASSWORD_HASH_COST = "10";

export type Caller = ReturnType<typeof createCaller>;

export interface Harness {
  rt: Runtime;
  db: Pick<TestDatabase, "url" | "drop">;
  admin: { id: string; email: string };
  staff: { id: string; email: string };
  /** Moves the runtime's clock to `date` (undefined = real time). */
  setNow(date: Date | undefined): void;
  /** A caller with no session. */
  anonymous(ip?: string): Promise<Caller>;
  /** Signs `email` in through `auth.signIn` and returns a caller holding that session, plus its token. */
  signedIn(email: string, password?: string): Promise<{ caller: Caller; token: string }>;
  /** A caller for an existing cookie token. */
  withToken(token: string): Promise<Caller>;
  close(): Promise<void>;
}

/**
 * Opens the harness on a database of its own (`env`: further configuration variables, which may override the
 * harness's own such as PASSWORD_HASH_COST); call `close()` in afterAll.
 */
export async function openHarness(env: Record<string, string> = {}): Promise<Harness> {
  let now: Date | undefined;
  const clock: Clock = () => now ?? new Date();
  const database = await openTestDatabase({
    prefix: "petstore_trpc",
    env: { PUBLIC_BASE_URL: "http://dashboard.test", PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST, ...env },
    clock,
    users: [
      { email: "admin@example.com", name: "Ada Admin", role: "admin" },
      { email: "staff@example.com", name: "Sam Staff", role: "staff" },
    ],
  });
  const { rt } = database;
  const [admin, staff] = database.users as [TestDatabase["users"][0], TestDatabase["users"][0]];

  const withToken = async (token: string) =>
    createCaller(await createInnerContext({ rt, sessionToken: token }));
  return {
    rt,
    db: database,
    admin,
    staff,
    setNow: (date) => {
      now = date;
    },
    anonymous: async (ip = "192.0.2.1") => createCaller(await createInnerContext({ rt, clientIp: ip })),
    async signedIn(email, password = PASSWORD) {
      const resHeaders = new Headers();
      const anon = createCaller(await createInnerContext({ rt, clientIp: "192.0.2.10", resHeaders }));
      await anon.auth.signIn({ email, password });
      const token = readCookie(resHeaders.get("set-cookie")?.split(";")[0], SESSION_COOKIE);
      if (!token) throw new Error("sign-in set no session cookie");
      return { caller: await withToken(token), token };
    },
    withToken,
    close: () => database.drop(),
  };
}

export interface UsedHarness extends Harness {
  /** A caller signed in as `email` once the harness opens; ask for it in the block's body. */
  as(email: string): Caller;
}

/** Opens the harness (`openHarness(env)`) and the sessions `as` asks for before the block's tests; closes it after. */
export function useHarness(env: Record<string, string> = {}): UsedHarness {
  const callers = new Map<string, Caller | undefined>();
  const h = {
    as(email: string) {
      callers.set(email, undefined);
      const at = (path: string): unknown =>
        new Proxy(() => {}, {
          get: (_target, name) => at(path ? `${path}.${String(name)}` : String(name)),
          apply: (_target, _this, args: unknown[]) => callPath(callers.get(email) as Caller, path, args[0]),
        });
      return at("") as Caller;
    },
  } as UsedHarness;
  beforeAll(async () => {
    Object.assign(h, await openHarness(env));
    for (const email of callers.keys()) callers.set(email, (await h.signedIn(email)).caller);
  });
  afterAll(() => h.close?.());
  return h;
}

/** Asserts that `promise` rejects with a TRPCError of `code` and returns it. */
export async function expectTrpcError(
  promise: Promise<unknown>,
  code: TRPCError["code"],
): Promise<TRPCError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected a ${code} error`).toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code).toBe(code);
  return error as TRPCError;
}

/** The first category id of the seeded data, by name. */
export async function categoryId(rt: Runtime, name: string): Promise<number> {
  const row = await databaseOf(rt).prisma.category.findUniqueOrThrow({ where: { name } });
  return Number(row.id);
}

/** The error as the browser receives it (the app's errorFormatter applied). */
export function shapeOf(error: TRPCError) {
  return formatError({
    shape: {
      message: error.message,
      code: -32600,
      data: { code: error.code, httpStatus: getHTTPStatusCodeFromError(error) },
    },
    error,
  });
}

/**
 * Counts `n` answered /v1 requests of `keyId` at `at` in the runtime's analytics, as the REST pipeline does
 * (in memory; `rt.analytics.flush()` stores them).
 */
export function countRequests(
  rt: Runtime,
  keyId: string,
  at: Date,
  n: number,
  outcome: Outcome = "2xx",
  operation: Operation = "listPets",
): void {
  const status = { "2xx": 200, "4xx": 404, rate_limited: 429, key_banned: 429, "5xx": 500 }[outcome];
  for (let i = 0; i < n; i++)
    rt.analytics?.record({
      keyId,
      operation,
      outcome,
      status,
      durationMs: 2,
      at: at.getTime(),
      clientIp: "192.0.2.1",
      requestId: `test-${i}`,
    });
}

/** A consumer account made for a test, with its owner signed up (the owner's password is PASSWORD). */
export interface TestAccount {
  id: string;
  ownerEmail: string;
}

/** The token of an invitation link (`…/portal/invitations/<token>`). */
export const invitationToken = (url: string): string => url.slice(url.lastIndexOf("/") + 1);

/**
 * Creates account `name` on `plan` through the runtime, as an admin does, and accepts its owner's invitation as
 * `owner-<slug>@example.com` with PASSWORD.
 */
export async function createTestAccount(
  rt: Runtime,
  name: string,
  plan: "free" | "pro" | "business" | "enterprise" = "free",
): Promise<TestAccount> {
  const ownerEmail = `owner-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}@example.com`;
  const created = await rt.accounts.create({ name, plan, ownerEmail }, "test");
  await rt.invitations.accept({
    token: invitationToken(created.invitationUrl),
    name: `Owner of ${name}`,
    password: PASSWORD,
  });
  return { id: created.id, ownerEmail };
}

/** Calls the procedure at dotted `path` (`portal.keys.revoke`) on `caller` with `input`. @throws for no such path. */
export function callPath(caller: Caller, path: string, input?: unknown): Promise<unknown> {
  let node: unknown = caller;
  for (const part of path.split(".")) node = (node as Record<string, unknown> | undefined)?.[part];
  if (typeof node !== "function") throw new Error(`no procedure ${path}`);
  return (node as (input?: unknown) => Promise<unknown>)(input);
}
