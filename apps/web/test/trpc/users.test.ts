import { loadConfig } from "@petstore/config";
import { createUserService } from "@petstore/core";
import { databaseOf } from "@petstore/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { expectTrpcError, PASSWORD, shapeOf, TEST_PASSWORD_HASH_COST, useHarness } from "./support";

describe("users procedures (admin)", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");

  it("lists users without password hashes", async () => {
    const list = await admin.users.list();
    expect(list.map((u) => [u.email, u.role, u.active])).toEqual([
      ["admin@example.com", "admin", true],
      ["staff@example.com", "staff", true],
    ]);
    expect(JSON.stringify(list)).not.toMatch(/scrypt|passwordHash/);
  });

  it("creates a staff member who can then sign in", async () => {
    const created = await admin.users.create({
      email: "New.Person@Example.com",
      name: "New Person",
      role: "staff",
      password: PASSWORD,
    });
    expect(created).toMatchObject({ email: "new.person@example.com", role: "staff", active: true });
    const { caller } = await h.signedIn("new.person@example.com");
    expect(await caller.auth.me()).toMatchObject({ role: "staff" });
    const audit = await databaseOf(h.rt).prisma.auditLog.findFirst({
      where: { action: "user.create", entityId: created.id },
    });
    expect(JSON.stringify(audit?.after)).not.toContain("scrypt");
  });

  it("validates new users", async () => {
    const short = await expectTrpcError(
      admin.users.create({ email: "a@example.com", name: "A", role: "staff", password: "short" }),
      "BAD_REQUEST",
    );
    expect(shapeOf(short).data.details).toEqual([
      { path: "password", message: "must be at least 12 characters" },
    ]);
    const taken = await expectTrpcError(
      admin.users.create({ email: "staff@example.com", name: "Dup", role: "staff", password: PASSWORD }),
      "BAD_REQUEST",
    );
    expect(shapeOf(taken).data.details).toEqual([{ path: "email", message: "is already in use" }]);
    await expectTrpcError(
      admin.users.create({ email: "b@example.com", name: "B", role: "owner" as never, password: PASSWORD }),
      "BAD_REQUEST",
    );
  });

  it("changes roles, but not one's own", async () => {
    const user = await admin.users.create({
      email: "promote@example.com",
      name: "Promote",
      role: "staff",
      password: PASSWORD,
    });
    expect(await admin.users.setRole({ id: user.id, role: "admin" })).toMatchObject({ role: "admin" });
    // Each request resolves the session afresh, so a role change applies to the very next call.
    const { token } = await h.signedIn("promote@example.com");
    expect(await (await h.withToken(token)).plans.list()).toHaveLength(4);
    await admin.users.setRole({ id: user.id, role: "staff" });
    await expectTrpcError((await h.withToken(token)).plans.list(), "FORBIDDEN");
    const own = await expectTrpcError(admin.users.setRole({ id: h.admin.id, role: "staff" }), "CONFLICT");
    expect(own.message).toBe("You cannot change your own role.");
    await expectTrpcError(
      admin.users.setRole({ id: "00000000-0000-4000-8000-000000000000", role: "staff" }),
      "NOT_FOUND",
    );
  });

  it("deactivating a user ends their sessions at once; reactivating lets them sign in again", async () => {
    const user = await admin.users.create({
      email: "leaver@example.com",
      name: "Leaver",
      role: "staff",
      password: PASSWORD,
    });
    const { token } = await h.signedIn("leaver@example.com");
    await (await h.withToken(token)).pets.search({});
    expect(await admin.users.setActive({ id: user.id, active: false })).toMatchObject({
      active: false,
      activeSessions: 0,
    });
    await expectTrpcError((await h.withToken(token)).pets.search({}), "UNAUTHORIZED");
    await expectTrpcError(h.signedIn("leaver@example.com"), "UNAUTHORIZED");
    await admin.users.setActive({ id: user.id, active: true });
    await expect(h.signedIn("leaver@example.com")).resolves.toBeTruthy();
    await expectTrpcError(admin.users.setActive({ id: h.admin.id, active: false }), "CONFLICT");
  });

  it("never lets the last active admin be removed (e.g. from the CLI)", async () => {
    const others = (await admin.users.list()).filter((u) => u.role === "admin" && u.id !== h.admin.id);
    for (const other of others) await admin.users.setRole({ id: other.id, role: "staff" });
    await expect(h.rt.users.setActive({ id: h.admin.id, active: false }, "cli:root")).rejects.toMatchObject({
      code: "conflict",
    });
    await expect(h.rt.users.setRole({ id: h.admin.id, role: "staff" }, "cli:root")).rejects.toMatchObject({
      code: "conflict",
    });
  });

  it("hashes new passwords at the configured scrypt cost, N = 2^15 by default; a stored hash keeps its own", async () => {
    const prisma = databaseOf(h.rt).prisma;
    const hashOf = async (email: string) =>
      (await prisma.user.findUniqueOrThrow({ where: { email } })).passwordHash;
    // The harness configures PASSWORD_HASH_COST=10.
    expect(TEST_PASSWORD_HASH_COST).toBe("10");
    expect(await hashOf("staff@example.com")).toMatch(/^scrypt\$1024\$8\$1\$/);
    // The same service under the default configuration.
    const byDefault = createUserService({
      prisma,
      clock: h.rt.clock,
      config: loadConfig({ DATABASE_URL: h.db.url, LOG_LEVEL: "silent" }),
    });
    await byDefault.create(
      { email: "default.cost@example.com", name: "Dee Fault", role: "staff", password: PASSWORD },
      "test",
    );
    expect(await hashOf("default.cost@example.com")).toMatch(
      /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/,
    );
    // Verified at the cost it names: it signs in on this runtime, which hashes at 2^10.
    const { caller } = await h.signedIn("default.cost@example.com");
    expect(await caller.auth.me()).toMatchObject({ email: "default.cost@example.com" });
    await expectTrpcError(h.signedIn("default.cost@example.com", "not the password at all"), "UNAUTHORIZED");
  });
});

describe("the users list's sort (admin)", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");
  beforeAll(async () => {
    const prisma = databaseOf(h.rt).prisma;
    const people = [
      { email: "zoe@example.com", name: "alice", role: "staff", created: "2026-02-01T09:00:00Z" },
      { email: "yann@example.com", name: "Bob", role: "admin", created: "2025-11-15T09:00:00Z" },
      { email: "xena@example.com", name: "carol", role: "staff", created: "2026-10-03T09:00:00Z" },
      { email: "walt@example.com", name: "Bob", role: "staff", created: "2026-09-30T09:00:00Z" },
    ] as const;
    for (const p of people) {
      const user = await admin.users.create({
        email: p.email,
        name: p.name,
        role: p.role,
        password: PASSWORD,
      });
      await prisma.user.update({ where: { id: user.id }, data: { createdAt: new Date(p.created) } });
    }
    await admin.users.setActive({
      id: (await prisma.user.findUniqueOrThrow({ where: { email: "xena@example.com" } })).id,
      active: false,
    });
    await h.signedIn("zoe@example.com");
    await h.signedIn("zoe@example.com");
    await h.signedIn("walt@example.com");
    await prisma.user.updateMany({
      where: { email: { in: ["admin@example.com", "staff@example.com"] } },
      data: { createdAt: new Date("2026-01-10T09:00:00Z") },
    });
  });

  const emails = async (sortBy?: string, sortDirection?: "asc" | "desc") =>
    (await admin.users.list(sortBy ? { sortBy: sortBy as never, sortDirection } : undefined)).map((u) =>
      u.email.replace("@example.com", ""),
    );

  it("lists admins first by default, then by email", async () => {
    expect(await emails()).toEqual(["admin", "yann", "staff", "walt", "xena", "zoe"]);
    expect(await emails("role", "desc")).toEqual(["staff", "walt", "xena", "zoe", "admin", "yann"]);
  });

  it("sorts names regardless of case, the email breaking ties in either direction", async () => {
    const names = (await admin.users.list({ sortBy: "name", sortDirection: "asc" })).map((u) => u.name);
    expect(names).toEqual(["Ada Admin", "alice", "Bob", "Bob", "carol", "Sam Staff"]);
    expect(await emails("name", "asc")).toEqual(["admin", "zoe", "walt", "yann", "xena", "staff"]);
    expect(await emails("name", "desc")).toEqual(["staff", "xena", "walt", "yann", "zoe", "admin"]);
  });

  it("sorts by email, by state (active first), by live sessions and by creation as dates", async () => {
    expect(await emails("email", "desc")).toEqual(["zoe", "yann", "xena", "walt", "staff", "admin"]);
    expect(await emails("state", "asc")).toEqual(["admin", "staff", "walt", "yann", "zoe", "xena"]);
    expect(await emails("state", "desc")).toEqual(["xena", "admin", "staff", "walt", "yann", "zoe"]);
    // The admin's own session (beforeAll) counts too.
    expect(await emails("sessions", "desc")).toEqual(["zoe", "admin", "walt", "staff", "xena", "yann"]);
    expect(await emails("createdAt", "asc")).toEqual(["yann", "admin", "staff", "zoe", "walt", "xena"]);
    expect(await emails("createdAt", "desc")).toEqual(["xena", "walt", "zoe", "admin", "staff", "yann"]);
  });

  it("refuses a column it does not sort by", async () => {
    await expectTrpcError(admin.users.list({ sortBy: "password" as never }), "BAD_REQUEST");
  });
});
