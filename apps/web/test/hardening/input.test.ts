/**
 * Input handling (docs/contract.md section 1 "Text that people type"), over HTTP against the app served in
 * process (in-process.ts: the REST app and the tRPC API behind server.ts's router): a NUL in any text is a 400 (never a 500),
 * names need a visible character and may not carry bidi overrides, searches take `%` and `_` literally,
 * cursors cannot be forged with a secret from the source and are range-checked, and ids and `limit` are
 * plain decimals without leading zeros.
 */
import { createHmac } from "node:crypto";
import { databaseOf } from "@petstore/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../support/harness.ts";
import { type InProcessApp, useInProcessApp } from "./in-process.ts";
import { ADMIN, type Reply, rest, STAFF, signIn, trpc, trpcCode } from "./support.ts";

interface ErrorBody {
  code: string;
  status: number;
  details?: { path: string; message: string }[];
}

/** A cursor as `packages/core/src/pets/cursor.ts` made them, signed with `secret`. */
function cursorSignedWith(secret: string, afterId: string, status: string | null = null): string {
  const payload = Buffer.from(JSON.stringify({ a: afterId, s: status })).toString("base64url");
  const signature = createHmac("sha256", secret).update(payload).digest("base64url").slice(0, 22);
  return `${payload}.${signature}`;
}

const OLD_SOURCE_SECRET = "petstore.listPets.cursor.v1";

function expectValidationFailed(r: Reply, path: string): void {
  expect(r.status, r.text).toBe(400);
  const body = r.body as ErrorBody;
  expect(body.code).toBe("validation_failed");
  expect(body.details?.map((d) => d.path)).toContain(path);
}

function expectTrpcBadRequest(r: Reply, path?: string): void {
  expect(r.status, r.text).toBe(400);
  expect(trpcCode(r)).toBe("BAD_REQUEST");
  const data = (r.body as { error: { data: { appCode?: string; details?: { path: string }[] } } }).error.data;
  expect(data.appCode).toBe("validation_failed");
  if (path) expect(data.details?.map((d) => d.path)).toContain(path);
}

describe("text, cursors and numbers (no CURSOR_SECRET)", () => {
  const app: InProcessApp = useInProcessApp();
  let staff = "";
  let admin = "";
  let categoryId = 0;

  beforeAll(async () => {
    staff = await signIn(app, STAFF);
    admin = await signIn(app, ADMIN);
    const category = await databaseOf(app.db.rt).prisma.category.findFirstOrThrow();
    categoryId = Number(category.id);
  });

  it("answers a NUL in an animal's name with 400, over REST and tRPC", async () => {
    const r = await rest(app, "/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "a\u0000b", categoryId }),
    });
    expectValidationFailed(r, "name");
    const t = await trpc(app, "mutation", "pets.create", { name: "a\u0000b", categoryId }, { token: staff });
    expectTrpcBadRequest(t, "name");
  });

  it("answers a NUL in category, key and user names, searches and audit filters with 400", async () => {
    const calls: [string, "query" | "mutation", unknown, string, string][] = [
      ["categories.create", "mutation", { name: "x\u0000" }, staff, "name"],
      ["apiKeys.create", "mutation", { name: "k\u0000", plan: "free" }, admin, "name"],
      [
        "users.create",
        "mutation",
        { email: "nul@example.com", name: "N\u0000", role: "staff", password: "long enough password" },
        admin,
        "name",
      ],
      ["pets.search", "query", { query: "\u0000" }, staff, "query"],
      ["audit.list", "query", { actor: "user:\u0000" }, admin, "actor"],
      ["audit.list", "query", { entityId: "1\u0000" }, admin, "entityId"],
    ];
    for (const [path, kind, input, token, field] of calls) {
      expectTrpcBadRequest(await trpc(app, kind, path, input, { token }), field);
    }
  });

  it("refuses names without a visible character or with bidi controls, and stores names NFC-normalised", async () => {
    for (const name of ["\u200B\u200B", " \u2060 ", "\u202Eevil", "a\u2066b", "tab\there", "\u0085x"]) {
      expectValidationFailed(
        await rest(app, "/v1/pets", { method: "POST", body: JSON.stringify({ name, categoryId }) }),
        "name",
      );
      expectTrpcBadRequest(
        await trpc(app, "mutation", "categories.create", { name }, { token: staff }),
        "name",
      );
    }
    const created = await rest(app, "/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "Cafe\u0301", categoryId }),
    });
    expect(created.status).toBe(201);
    expect((created.body as { name: string }).name).toBe("Caf\u00e9");
  });

  it("takes % and _ literally in the animals search", async () => {
    for (const name of ["100% Rex", "snake_case", "plain"]) {
      expect(
        (await rest(app, "/v1/pets", { method: "POST", body: JSON.stringify({ name, categoryId }) })).status,
      ).toBe(201);
    }
    const names = async (query: string) => {
      const r = await trpc(app, "query", "pets.search", { query, pageSize: 100 }, { token: staff });
      expect(r.status, r.text).toBe(200);
      return (r.body as { result: { data: { rows: { name: string }[] } } }).result.data.rows.map(
        (p) => p.name,
      );
    };
    expect(await names("%")).toEqual(["100% Rex"]);
    expect(await names("_")).toEqual(["snake_case"]);
    expect(await names("e_c")).toEqual(["snake_case"]);
    expect(await names("\\")).toEqual([]);
  });

  it("refuses a cursor signed with the secret the source used to hold", async () => {
    const forged = cursorSignedWith(OLD_SOURCE_SECRET, "9999999999999999999");
    expectValidationFailed(await rest(app, `/v1/pets?cursor=${encodeURIComponent(forged)}`), "cursor");
    const plausible = cursorSignedWith(OLD_SOURCE_SECRET, "1");
    expectValidationFailed(await rest(app, `/v1/pets?cursor=${encodeURIComponent(plausible)}`), "cursor");
  });

  it("keeps the generated cursor secret in the database: a cursor outlives the server that issued it", async () => {
    for (let i = 0; i < 3; i++) {
      await rest(app, "/v1/pets", {
        method: "POST",
        body: JSON.stringify({ name: `walk ${i}`, categoryId }),
      });
    }
    const first = await rest(app, "/v1/pets?limit=1");
    const next = /<([^>]+)>;\s*rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeTruthy();
    const stored = await databaseOf(app.db.rt).prisma.$queryRawUnsafe<{ count: bigint }[]>(
      `SELECT count(*) AS count FROM "ServerSecret" WHERE name = 'cursor'`,
    );
    expect(Number(stored[0]?.count)).toBe(1);
    // A second server on the same database (another instance, or this one restarted) accepts it.
    const other = await startTestServer("postgres", {
      env: { DATABASE_URL: app.db.url, PUBLIC_BASE_URL: app.baseUrl },
      migrated: true,
    });
    try {
      const r = await fetch(`${other.baseUrl}${new URL(next ?? "").pathname}${new URL(next ?? "").search}`, {
        headers: { Authorization: `Bearer ${app.key}` },
      });
      expect(r.status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it("answers ids and limits with leading zeros with 400", async () => {
    expectValidationFailed(await rest(app, "/v1/pets/01"), "petId");
    expectValidationFailed(await rest(app, "/v1/pets/0000000000000000001"), "petId");
    expectValidationFailed(await rest(app, "/v1/pets?limit=0100"), "limit");
    expectValidationFailed(await rest(app, "/v1/pets?limit=05"), "limit");
    expect((await rest(app, "/v1/pets?limit=100")).status).toBe(200);
  });
});

describe("cursors with CURSOR_SECRET", () => {
  const SECRET = "test-cursor-secret-0123456789abcdef0123456789";
  const app: InProcessApp = useInProcessApp({ CURSOR_SECRET: SECRET });

  it("answers a validly signed cursor whose id is beyond int64 with 400, not 500", async () => {
    for (const afterId of ["9999999999999999999", "9223372036854775808"]) {
      const r = await rest(app, `/v1/pets?cursor=${encodeURIComponent(cursorSignedWith(SECRET, afterId))}`);
      expectValidationFailed(r, "cursor");
    }
    const fine = await rest(app, `/v1/pets?cursor=${encodeURIComponent(cursorSignedWith(SECRET, "1"))}`);
    expect(fine.status).toBe(200);
  });
});
