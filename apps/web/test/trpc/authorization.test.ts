/**
 * The procedure ladders for every procedure in the router: anonymous callers get UNAUTHORIZED for anything
 * but the public procedures, staff get FORBIDDEN for admin procedures, admins pass the check (whatever the input
 * then says); members of consumer accounts get FORBIDDEN for every staff and admin procedure, staff and admins for
 * every portal procedure, developers for the owners' procedures.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../../src/server/trpc/router";
import { type Caller, callPath, createTestAccount, type Harness, openHarness, PASSWORD } from "./support";

const PUBLIC = ["auth.me", "auth.signIn", "auth.signOut", "portal.invitation", "portal.acceptInvitation"];
const MEMBER = [
  "portal.account",
  "portal.keys.list",
  "portal.keys.get",
  "portal.keys.create",
  "portal.keys.roll",
  "portal.keys.revoke",
  "portal.keys.changeAllowlist",
  "portal.keys.traffic",
  "portal.keys.recentRequests",
  "portal.requestLog",
  "portal.usage",
  "portal.monthQuota",
  "portal.webhooks.list",
  "portal.webhooks.get",
  "portal.webhooks.create",
  "portal.webhooks.update",
  "portal.webhooks.enable",
  "portal.webhooks.disable",
  "portal.webhooks.rotate",
  "portal.webhooks.remove",
  "portal.webhooks.sendTest",
  "portal.webhooks.deliveryLog",
  "portal.webhooks.message",
  "portal.webhooks.replayMessage",
  "portal.webhooks.replayRange",
  "portal.orders.search",
  "portal.orders.get",
  "portal.orders.cancel",
];
const OWNER = ["portal.invite", "portal.setMemberRole", "portal.removeMember", "portal.setAlertThresholds"];
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
  "overview.orders",
  "orders.search",
  "orders.get",
  "orders.complete",
  "orders.cancel",
  "orders.accounts",
  "sessions.list",
  "sessions.revoke",
  "sessions.revokeOthers",
];
const ADMIN = [
  "apiKeys.list",
  "apiKeys.deprecatedCalls",
  "apiKeys.brownouts",
  "apiKeys.scheduleBrownout",
  "apiKeys.cancelBrownout",
  "apiKeys.get",
  "apiKeys.usage",
  "apiKeys.traffic",
  "apiKeys.dayByHour",
  "apiKeys.recentRequests",
  "apiKeys.monthQuota",
  "apiKeys.create",
  "apiKeys.revoke",
  "apiKeys.markLeaked",
  "apiKeys.roll",
  "apiKeys.changePlan",
  "apiKeys.changeScopes",
  "apiKeys.changeAllowlist",
  "apiKeys.liftBan",
  "apiKeys.resetUsage",
  "plans.list",
  "plans.affectedKeys",
  "plans.update",
  "plans.setKeyCap",
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
  "accounts.list",
  "accounts.get",
  "accounts.requestLog",
  "accounts.usage",
  "accounts.create",
  "accounts.invite",
  "accounts.setMemberRole",
  "accounts.removeMember",
  "accounts.setPlan",
  "accounts.setSuspended",
  "accounts.setLimits",
  "accounts.setAlertThresholds",
  "accounts.monthQuota",
];

/** Calls `path` on `caller` with an empty input and returns the error code, or "OK". */
async function outcome(caller: Caller, path: string): Promise<string> {
  try {
    await callPath(caller, path, {});
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
  let owner: Caller;
  let developer: Caller;
  beforeAll(async () => {
    h = await openHarness();
    anonymous = await h.anonymous();
    staff = (await h.signedIn("staff@example.com")).caller;
    admin = (await h.signedIn("admin@example.com")).caller;
    const account = await createTestAccount(h.rt, "Ladder shop");
    owner = (await h.signedIn(account.ownerEmail)).caller;
    const invited = await h.rt.invitations.invite(
      account.id,
      { email: "dev@ladder.example", role: "developer" },
      "test",
    );
    await h.rt.invitations.accept({
      token: invited.invitationUrl.split("/").pop() ?? "",
      name: "Dee Dev",
      password: PASSWORD,
    });
    developer = (await h.signedIn("dev@ladder.example")).caller;
  });
  afterAll(() => h?.close());

  it("classifies every procedure of the router", () => {
    expect(Object.keys(appRouter._def.procedures).sort()).toEqual(
      [...PUBLIC, ...STAFF, ...ADMIN, ...MEMBER, ...OWNER].sort(),
    );
  });

  it.each([...STAFF, ...ADMIN, ...MEMBER, ...OWNER])("%s: anonymous gets UNAUTHORIZED", async (path) => {
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

  it.each(STAFF.concat(ADMIN))("%s: an account's owner gets FORBIDDEN", async (path) => {
    expect(await outcome(owner, path)).toBe("FORBIDDEN");
  });

  it.each(MEMBER.concat(OWNER))("%s: staff and admins get FORBIDDEN", async (path) => {
    expect(await outcome(staff, path)).toBe("FORBIDDEN");
    expect(await outcome(admin, path)).toBe("FORBIDDEN");
  });

  it.each(OWNER)("%s: a developer gets FORBIDDEN", async (path) => {
    expect(await outcome(developer, path)).toBe("FORBIDDEN");
  });

  it.each(OWNER)("%s: an owner passes the role check", async (path) => {
    expect(["OK", "BAD_REQUEST"]).toContain(await outcome(owner, path));
  });

  it.each(MEMBER)("%s: developers and owners pass the role check", async (path) => {
    expect(["OK", "BAD_REQUEST"]).toContain(await outcome(developer, path));
    expect(["OK", "BAD_REQUEST"]).toContain(await outcome(owner, path));
  });
});
