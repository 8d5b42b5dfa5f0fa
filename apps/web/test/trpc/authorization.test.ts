/**
 * The procedure ladder for every procedure in the router: anonymous callers get UNAUTHORIZED for anything
 * but auth.*, staff get FORBIDDEN for admin procedures, admins pass the check (whatever the input then says).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../../src/server/trpc/router";
import { type Caller, type Harness, openHarness } from "./support";

const PUBLIC = ["auth.me", "auth.signIn", "auth.signOut"];
const STAFF = [
  "pets.search",
  "pets.get",
  "pets.create",
  "pets.update",
  "pets.remove",
  "pets.setStatus",
  "pets.restoreStatus",
  "categories.list",
  "categories.create",
  "categories.rename",
  "categories.remove",
  "overview.animals",
  "sessions.list",
  "sessions.revoke",
  "sessions.revokeOthers",
];
const ADMIN = [
  "apiKeys.list",
  "apiKeys.deprecatedCalls",
  "apiKeys.get",
  "apiKeys.usage",
  "apiKeys.traffic",
  "apiKeys.dayByHour",
  "apiKeys.recentRequests",
  "apiKeys.create",
  "apiKeys.revoke",
  "apiKeys.roll",
  "apiKeys.changePlan",
  "apiKeys.changeScopes",
  "apiKeys.liftBan",
  "apiKeys.resetUsage",
  "plans.list",
  "plans.affectedKeys",
  "plans.update",
  "users.list",
  "users.create",
  "users.setRole",
  "users.setActive",
  "users.endSessions",
  "audit.list",
  "audit.actors",
  "overview.keys",
  "overview.traffic",
  "webhooks.list",
  "webhooks.get",
  "webhooks.create",
  "webhooks.update",
  "webhooks.enable",
  "webhooks.disable",
  "webhooks.rotate",
  "webhooks.remove",
  "webhooks.sendTest",
  "webhooks.deliveryLog",
  "webhooks.message",
  "webhooks.replayMessage",
  "webhooks.replayRange",
];

/** Calls `path` on `caller` with an empty input and returns the error code, or "OK". */
async function outcome(caller: Caller, path: string): Promise<string> {
  const [area, name] = path.split(".") as [string, string];
  const procedure = (
    caller as unknown as Record<string, Record<string, (input?: unknown) => Promise<unknown>>>
  )[area]?.[name];
  if (!procedure) throw new Error(`no procedure ${path}`);
  try {
    await procedure({});
    return "OK";
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe("authorization of every procedure", () => {
  let h: Harness;
  let anonymous: Caller;
  let staff: Caller;
  let admin: Caller;
  beforeAll(async () => {
    h = await openHarness();
    anonymous = await h.anonymous();
    staff = (await h.signedIn("staff@example.com")).caller;
    admin = (await h.signedIn("admin@example.com")).caller;
  });
  afterAll(() => h?.close());

  it("classifies every procedure of the router", () => {
    expect(Object.keys(appRouter._def.procedures).sort()).toEqual([...PUBLIC, ...STAFF, ...ADMIN].sort());
  });

  it.each(STAFF.concat(ADMIN))("%s: anonymous gets UNAUTHORIZED", async (path) => {
    expect(await outcome(anonymous, path)).toBe("UNAUTHORIZED");
  });

  it.each(ADMIN)("%s: staff gets FORBIDDEN", async (path) => {
    expect(await outcome(staff, path)).toBe("FORBIDDEN");
  });

  it.each(STAFF)("%s: staff passes the role check", async (path) => {
    expect(["OK", "BAD_REQUEST"]).toContain(await outcome(staff, path));
  });

  it.each(ADMIN)("%s: admin passes the role check", async (path) => {
    expect(["OK", "BAD_REQUEST"]).toContain(await outcome(admin, path));
  });
});
