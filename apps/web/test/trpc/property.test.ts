/**
 * Property-based fuzzing of every tRPC procedure (fast-check), like the REST suite: arbitrary inputs (any JSON
 * value, and objects built from the router's field names with hostile values: NUL and other controls, bidi
 * overrides, invisible names, LIKE wildcards, huge and fractional numbers, existing and unknown ids) to every
 * procedure as an anonymous caller, a staff user and an admin. Whatever comes in, the answer is never
 * INTERNAL_SERVER_ERROR, and a rejected call changes nothing in the database (every table's content is
 * fingerprinted after the call and compared with the state before it). The one designed exception: a refused
 * sign-in is counted by the throttle and written to the audit log.
 *
 * Every role x procedure cell runs; each takes `propertyRuns` runs (a few by default, seeded for
 * reproducibility; FC_RUNS and FC_SEED override, and `npm run test:deep` runs many). The clock stands still, so
 * that no session use slides an expiry during a call, and a caller's session is reused until a call succeeds
 * (a success may end it): a rejected call leaves the state it found, so the fingerprint taken after it is the
 * next call's "before" and each call costs one fingerprint.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { databaseOf } from "@petstore/core/testing";
import { TRPCError } from "@trpc/server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { appRouter, createCaller } from "../../src/server/trpc/router";
import { propertyRuns } from "../support/common.ts";
import { type Harness, openHarness } from "./support";

const params = propertyRuns(10, 20_301_206);

const TABLES = [
  "Category",
  "Pet",
  "Plan",
  "ApiKey",
  "IdempotencyRecord",
  "UsageHour",
  "UsageHourTotal",
  "User",
  "Session",
  "AuditLog",
  "SignInThrottle",
  "ServerSecret",
];
/** Procedures whose refusals the sign-in throttle counts. */
const THROTTLED = new Set(["auth.requestPasswordReset", "auth.secondFactor", "security.changePassword"]);
/** Per table: its row count and the sum of its rows' 64-bit hashes (order-free, so no sort). */
const FINGERPRINT_SQL = `SELECT ${TABLES.map(
  (t) => `(SELECT count(*) || ':' || coalesce(sum(hashtextextended(x::text, 0)), 0) FROM "${t}" x) AS "${t}"`,
).join(", ")}`;

/** The instant the clock stands at while the procedures are fuzzed. */
const NOW = new Date("2031-03-04T05:06:07Z");

type Role = "anonymous" | "staff" | "admin";
type Procedure = (input?: unknown) => Promise<unknown>;

const PROCEDURES = Object.keys(appRouter._def.procedures).sort();

/** Characters that broke or could break text handling: NUL (PostgreSQL refuses it) above all. */
const nastyChar = fc.oneof(
  { arbitrary: fc.constant("\u0000"), weight: 5 },
  {
    arbitrary: fc.constantFrom(
      "\u0007",
      "\u001f",
      "\u007f",
      "\u0085",
      "\u202e",
      "\u2066",
      "\u200b",
      "%",
      "_",
      "\\",
    ),
    weight: 4,
  },
  { arbitrary: fc.constant("\ud800"), weight: 1 },
);

/** Strings a careless or hostile client sends: valid-looking text with a nasty character, and odd values. */
const nastyString = fc.oneof(
  {
    arbitrary: fc
      .tuple(fc.constantFrom("", "Rex", "user:", "1"), nastyChar, fc.constantFrom("", "y", "@example.com"))
      .map((parts) => parts.join("")),
    weight: 4,
  },
  {
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\u200b\u200b",
      "Cafe\u0301",
      "\u3164",
      "x".repeat(300),
      "staff@example.com",
      "admin@example.com",
      "free",
      "enterprise",
      "none",
      "30d",
      "-1",
      "9223372036854775808",
    ),
    weight: 2,
  },
  { arbitrary: fc.string({ unit: "binary", maxLength: 20 }), weight: 1 },
);

const nastyNumber = fc.oneof(
  fc.integer({ min: -3, max: 200 }),
  fc.constantFrom(0, -0, 1.5, 2 ** 31, 2 ** 53, 2 ** 63, 1e308, Number.MAX_SAFE_INTEGER, 100_000_001),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Values each field accepts, so that one hostile field meets otherwise valid ones. */
const VALID: Record<string, fc.Arbitrary<unknown>> = {
  name: fc.constantFrom("Rex", "Birds of prey", "Ada"),
  status: fc.constantFrom("available", "pending", "sold", null, "none"),
  page: fc.integer({ min: 1, max: 3 }),
  pageSize: fc.integer({ min: 1, max: 100 }),
  sortBy: fc.constantFrom("id", "name"),
  sortDirection: fc.constantFrom("asc", "desc"),
  query: fc.constantFrom("", "Rex", "x"),
  plan: fc.constantFrom("free", "pro", "business", "enterprise"),
  perMinute: fc.integer({ min: 1, max: 1000 }),
  perDay: fc.integer({ min: 1000, max: 100_000 }),
  expiresInSeconds: fc.integer({ min: 60, max: 86_400 }),
  graceSeconds: fc.integer({ min: 0, max: 604_800 }),
  days: fc.integer({ min: 1, max: 90 }),
  email: fc.constantFrom("new@example.com", "staff@example.com", "bystander@example.com"),
  password: fc.constantFrom("long enough password", "correct horse battery staple"),
  role: fc.constantFrom("staff", "admin"),
  active: fc.boolean(),
  actor: fc.constantFrom("test", "system", "user:admin@example.com"),
  entityType: fc.constantFrom("pet", "category", "apiKey", "plan", "user", "session"),
  entityId: fc.constantFrom("1", "admin@example.com"),
};

const FIELDS = [
  "id",
  "ids",
  "name",
  "categoryId",
  "status",
  "page",
  "pageSize",
  "sortBy",
  "sortDirection",
  "query",
  "plan",
  "perMinute",
  "perDay",
  "expiresInSeconds",
  "graceSeconds",
  "days",
  "email",
  "password",
  "role",
  "active",
  "actor",
  "entityType",
  "entityId",
];

describe("tRPC procedures under arbitrary input", () => {
  let h: Harness;
  let ids: { pets: number[]; categories: number[]; keys: string[]; users: string[] };

  /** A caller in `role` with a session of its own (no password check: a row written directly). */
  async function callerFor(role: Role) {
    if (role === "anonymous")
      return createCaller(await createInnerContext({ rt: h.rt, clientIp: "192.0.2.99" }));
    const token = randomBytes(32).toString("base64url");
    const user = role === "admin" ? h.admin : h.staff;
    const now = h.rt.clock();
    await databaseOf(h.rt).prisma.session.create({
      data: {
        tokenHash: createHash("sha256").update(token).digest("hex"),
        userId: user.id,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + 3600_000),
      },
    });
    return createCaller(await createInnerContext({ rt: h.rt, sessionToken: token, clientIp: "192.0.2.98" }));
  }

  const fingerprint = async () =>
    JSON.stringify(await databaseOf(h.rt).prisma.$queryRawUnsafe<Record<string, string>[]>(FINGERPRINT_SQL));

  beforeAll(async () => {
    h = await openHarness();
    h.setNow(NOW);
    const category = await h.rt.categories.create("fuzz", "test");
    const pet = await h.rt.pets.create({ name: "Fuzzy", categoryId: category.id }, "test");
    const key = await h.rt.apiKeys.create({ name: "fuzz", plan: "free" }, "test");
    // A user the fuzzer may change; never the staff and admin users whose sessions it calls with.
    const bystander = await h.rt.users.create(
      { email: "bystander@example.com", name: "By Stander", role: "staff", password: "long enough password" },
      "test",
    );
    ids = { pets: [pet.id], categories: [category.id], keys: [key.id], users: [bystander.id] };
  });
  afterAll(() => h?.close());

  const idValue = () =>
    fc.oneof(
      fc.constantFrom(...ids.pets, ...ids.categories),
      fc.constantFrom(...ids.keys, ...ids.users),
      fc.uuid(),
      nastyNumber,
      nastyString,
    );

  const hostile = (field: string): fc.Arbitrary<unknown> => {
    if (field === "id" || field === "categoryId") return idValue();
    if (field === "ids") return fc.array(idValue(), { maxLength: 4 });
    return fc.oneof(
      { arbitrary: nastyString, weight: 4 },
      { arbitrary: nastyNumber, weight: 2 },
      { arbitrary: fc.boolean(), weight: 1 },
      { arbitrary: fc.constant(null), weight: 1 },
      { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 },
    );
  };
  const value = (field: string): fc.Arbitrary<unknown> => {
    const valid = VALID[field];
    return valid
      ? fc.oneof({ arbitrary: valid, weight: 1 }, { arbitrary: hostile(field), weight: 1 })
      : hostile(field);
  };

  /** Keys of the procedure's input object (zod `shape`), if it has one. */
  const keysOf = (path: string): string[] => {
    const procedure = (
      appRouter._def.procedures as unknown as Record<string, { _def: { inputs: unknown[] } }>
    )[path];
    const shape = (procedure?._def.inputs[0] as { shape?: Record<string, unknown> } | undefined)?.shape;
    return shape ? Object.keys(shape) : [];
  };

  const input = (path: string) => {
    const own = keysOf(path);
    const record = (keys: string[], complete: boolean) =>
      fc.record(Object.fromEntries(keys.map((k) => [k, value(k)])), { requiredKeys: complete ? keys : [] });
    return fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 1 },
      { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
      ...(own.length
        ? [
            { arbitrary: record(own, true), weight: 5 },
            { arbitrary: record(own, false), weight: 2 },
          ]
        : []),
      {
        arbitrary: fc
          .subarray(FIELDS, { minLength: 1, maxLength: 5 })
          .chain((fields) => record([...new Set([...own, ...fields])], false)),
        weight: 2,
      },
    );
  };

  describe.each(["anonymous", "staff", "admin"] as const)("as %s", (role) => {
    it.each(PROCEDURES)("%s: never INTERNAL_SERVER_ERROR, and a rejection changes nothing", async (path) => {
      const [area, name] = path.split(".") as [string, string];
      // The caller and the database state as the last rejected call left them; reset by anything else.
      let caller: Awaited<ReturnType<typeof callerFor>> | undefined;
      let known: string | undefined;
      await fc.assert(
        fc.asyncProperty(input(path), async (raw) => {
          if (!caller) {
            caller = await callerFor(role);
            known = undefined;
          }
          const procedure = (caller as unknown as Record<string, Record<string, Procedure>>)[area]?.[name];
          if (!procedure) throw new Error(`no procedure ${path}`);
          const before = known ?? (await fingerprint());
          known = undefined;
          let error: unknown;
          try {
            await procedure(raw);
          } catch (e) {
            error = e;
          }
          if (error === undefined) {
            caller = undefined;
            return;
          }
          expect(error, String(error)).toBeInstanceOf(TRPCError);
          const code = (error as TRPCError).code;
          expect(
            code,
            `${path} ${JSON.stringify(raw)}: ${String((error as TRPCError).cause ?? error)}`,
          ).not.toBe("INTERNAL_SERVER_ERROR");
          const counted = path === "auth.signIn" && (code === "UNAUTHORIZED" || code === "TOO_MANY_REQUESTS");
          if (counted) return;
          const after = await fingerprint();
          // The sign-in throttle counts refused reset requests, password changes and second factors by design
          // (docs/contract.md section 4): for those the rest of the database must hold still.
          const unthrottled = (print: string | undefined) =>
            THROTTLED.has(path) ? print?.replace(/"SignInThrottle":"[^"]*"/, "") : print;
          expect(unthrottled(after), `${path} ${JSON.stringify(raw)} -> ${code}`).toBe(unthrottled(before));
          known = after;
        }),
        params,
      );
    });
  });

  it("the fingerprint sees a change", async () => {
    const before = await fingerprint();
    await h.rt.categories.create(`seen ${randomUUID()}`, "test");
    expect(await fingerprint()).not.toBe(before);
  });
});
