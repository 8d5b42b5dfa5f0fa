/**
 * Consumer accounts (docs/contract.md section 7) through the admin and portal procedures: an account and its
 * owner's single-use invitation, the plan's key cap under concurrent creations, suspension refusing the account's
 * keys like revocation, a plan change moving every key, and members kept apart from staff.
 */
import { databaseOf } from "@petstore/core/testing";
import { beforeEach, describe, expect, it } from "vitest";
import {
  countRequests,
  createTestAccount,
  expectTrpcError,
  invitationToken,
  PASSWORD,
  useHarness,
} from "./support";

describe("consumer accounts", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");
  beforeEach(() => h.setNow(undefined));

  it("creates an account whose owner accepts the link once, is signed in, and lands in the account", async () => {
    const created = await admin.accounts.create({
      name: "Corner Shop",
      plan: "free",
      ownerEmail: "Olga@Shop.example",
    });
    expect(created.invitationUrl).toMatch(
      /^http:\/\/dashboard\.test\/portal\/invitations\/[A-Za-z0-9_-]{43}$/,
    );
    const token = invitationToken(created.invitationUrl);
    const anon = await h.anonymous();
    expect(await anon.portal.invitation({ token })).toMatchObject({
      accountName: "Corner Shop",
      email: "olga@shop.example",
      role: "owner",
    });
    const accepted = await anon.portal.acceptInvitation({ token, name: "Olga", password: PASSWORD });
    expect(accepted.user).toMatchObject({ email: "olga@shop.example", role: "owner", accountId: created.id });
    await expectTrpcError(
      anon.portal.acceptInvitation({ token, name: "Mallory", password: PASSWORD }),
      "NOT_FOUND",
    );
    await expectTrpcError(anon.portal.invitation({ token }), "NOT_FOUND");
    const owner = (await h.signedIn("olga@shop.example")).caller;
    expect(await owner.portal.account()).toMatchObject({
      name: "Corner Shop",
      plan: "free",
      maxKeys: 3,
      members: 1,
    });
    const audit = await databaseOf(h.rt).prisma.auditLog.findMany({
      where: { entityType: { in: ["account", "invitation"] } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((e) => e.action)).toEqual(["account.create", "invitation.create", "invitation.accept"]);
  });

  it("refuses an invitation after 72 hours, and one whose email already signs in, leaving the latter usable", async () => {
    const account = await createTestAccount(h.rt, "Expiry Shop");
    const late = await h.rt.invitations.invite(
      account.id,
      { email: "late@shop.example", role: "developer" },
      "test",
    );
    h.setNow(new Date(Date.now() + 72 * 3600_000 + 1000));
    const anon = await h.anonymous();
    await expectTrpcError(
      anon.portal.acceptInvitation({
        token: invitationToken(late.invitationUrl),
        name: "Late",
        password: PASSWORD,
      }),
      "NOT_FOUND",
    );
    h.setNow(undefined);
    const taken = await h.rt.invitations.invite(
      account.id,
      { email: "staff@example.com", role: "developer" },
      "test",
    );
    const token = invitationToken(taken.invitationUrl);
    await expectTrpcError(
      anon.portal.acceptInvitation({ token, name: "Sam", password: PASSWORD }),
      "CONFLICT",
    );
    expect(await anon.portal.invitation({ token })).toMatchObject({ email: "staff@example.com" });
  });

  it("lists an expired invitation as expired until a new one is sent to its email", async () => {
    const account = await createTestAccount(h.rt, "Resend Shop");
    const email = "resend@shop.example";
    const first = await admin.accounts.invite({ accountId: account.id, email, role: "developer" });
    // The link's 72 hours are over (moved in the database: the admin's session keeps the real clock).
    await databaseOf(h.rt).prisma.invitation.updateMany({
      where: { accountId: account.id, email },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const listed = async () =>
      (await admin.accounts.get({ id: account.id })).invitations.filter((i) => i.email === email);
    expect(await listed()).toEqual([expect.objectContaining({ email, role: "developer", expired: true })]);
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    expect((await owner.portal.account()).invitations).toEqual([
      expect.objectContaining({ email, expired: true }),
    ]);

    // Sending it again is a new invitation to the same email: the expired one leaves the list.
    const again = await owner.portal.invite({ email, role: "developer" });
    expect(again.invitationUrl).not.toBe(first.invitationUrl);
    expect(await listed()).toEqual([expect.objectContaining({ email, expired: false })]);
  });

  it("lets an account hold as many live keys as its plan allows, also when members create them at once", async () => {
    const account = await createTestAccount(h.rt, "Cap Shop");
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    const attempts = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => owner.portal.keys.create({ name: `key ${i}` })),
    );
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(3);
    const refused = attempts.find((a) => a.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason.code).toBe("CONFLICT");
    expect(refused.reason.message).toBe(
      "The free plan allows 3 live keys and this account has 3: revoke one first.",
    );
    const [first] = await owner.portal.keys.list();
    await owner.portal.keys.revoke({ id: first?.id as string });
    await owner.portal.keys.create({ name: "after a revocation" });
    const rolled = await owner.portal.keys.roll({
      id: (await owner.portal.keys.list())[0]?.id as string,
      graceSeconds: 60,
    });
    expect(rolled.plan).toBe("free");
    const row = await databaseOf(h.rt).prisma.apiKey.findUniqueOrThrow({ where: { id: rolled.id } });
    expect(row.accountId).toBe(account.id);
  });

  it("applies a plan's key cap as an admin sets it, and no cap when cleared", async () => {
    const account = await createTestAccount(h.rt, "Small Shop", "pro");
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    await admin.plans.setKeyCap({ plan: "pro", maxKeys: 1 });
    await owner.portal.keys.create({ name: "only one" });
    await expectTrpcError(owner.portal.keys.create({ name: "one too many" }), "CONFLICT");
    expect(await admin.plans.setKeyCap({ plan: "pro", maxKeys: null })).toMatchObject({ maxKeys: null });
    await owner.portal.keys.create({ name: "no cap now" });
    expect(await owner.portal.account()).toMatchObject({ keys: 2, maxKeys: null });
    await admin.plans.setKeyCap({ plan: "pro", maxKeys: 10 });
  });

  it("refuses every key of a suspended account like a revoked one, and takes them back on resume", async () => {
    const account = await createTestAccount(h.rt, "Suspended Shop");
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    const issued = await owner.portal.keys.create({ name: "soon suspended" });
    expect(await h.rt.apiKeys.authenticate(issued.key)).toMatchObject({ keyId: issued.id });
    const suspended = await admin.accounts.setSuspended({ id: account.id, suspended: true });
    expect(suspended.state).toBe("suspended");
    expect(await h.rt.apiKeys.authenticate(issued.key)).toBeUndefined();
    await expectTrpcError(owner.portal.keys.create({ name: "while suspended" }), "CONFLICT");
    await expectTrpcError(owner.portal.keys.roll({ id: issued.id, graceSeconds: 0 }), "CONFLICT");
    expect(JSON.stringify(await owner.portal.keys.list())).not.toContain("createdBy");
    expect((await owner.portal.keys.list())[0]?.state).toBe("active");
    await admin.accounts.setSuspended({ id: account.id, suspended: false });
    expect(await h.rt.apiKeys.authenticate(issued.key)).toMatchObject({ keyId: issued.id });
    const actions = await databaseOf(h.rt).prisma.auditLog.findMany({
      where: { entityType: "account", entityId: account.id },
      orderBy: { id: "asc" },
    });
    expect(actions.map((e) => e.action)).toEqual(["account.create", "account.suspend", "account.resume"]);
  });

  it("moves every key of an account to its new plan and its limits", async () => {
    const account = await createTestAccount(h.rt, "Growing Shop");
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    const issued = await owner.portal.keys.create({ name: "growing" });
    expect(await h.rt.apiKeys.authenticate(issued.key)).toMatchObject({ plan: "free", perMinute: 60 });
    await admin.accounts.setPlan({ id: account.id, plan: "pro" });
    expect(await h.rt.apiKeys.authenticate(issued.key)).toMatchObject({ plan: "pro", perMinute: 300 });
    expect(await owner.portal.account()).toMatchObject({ plan: "pro", maxKeys: 10, perMinute: 300 });
  });

  it("gives an Enterprise account limits of its own, which its keys share, before they can be created", async () => {
    const corp = await createTestAccount(h.rt, "Big Corp", "enterprise");
    const owner = (await h.signedIn(corp.ownerEmail)).caller;
    const refused = await expectTrpcError(owner.portal.keys.create({ name: "no limits" }), "CONFLICT");
    expect(refused.message).toMatch(/set this account's limits first/);
    await expectTrpcError(
      admin.accounts.setLimits({ id: corp.id, perMinute: 500, perDay: null }),
      "BAD_REQUEST",
    );
    const limited = await admin.accounts.setLimits({ id: corp.id, perMinute: 500, perDay: 20_000 });
    expect(limited.limits).toEqual({ perMinute: 500, perDay: 20_000, perMonth: null });
    const issued = await owner.portal.keys.create({ name: "limited" });
    expect(await h.rt.apiKeys.authenticate(issued.key)).toMatchObject({
      plan: "enterprise",
      perMinute: 500,
      perDay: 20_000,
    });
    expect(await owner.portal.account()).toMatchObject({ perMinute: 500, perDay: 20_000 });
    // Its own monthly quota, shared by its keys; the portal and the admin page read the month's progress.
    const quota = await admin.accounts.setLimits({
      id: corp.id,
      perMinute: 500,
      perDay: 20_000,
      perMonth: 400_000,
    });
    expect(quota).toMatchObject({ perMonth: 400_000, limits: { perMonth: 400_000 } });
    expect(await h.rt.apiKeys.authenticate(issued.key)).toMatchObject({ perMonth: 400_000 });
    expect(await owner.portal.monthQuota()).toMatchObject({ limit: 400_000, used: 0 });
    expect(await admin.accounts.monthQuota({ id: corp.id })).toMatchObject({ limit: 400_000 });
    await admin.accounts.setLimits({ id: corp.id, perMinute: 500, perDay: 20_000, perMonth: null });
    expect(await owner.portal.monthQuota()).toBeNull();
    // Usage alert thresholds: 80% and 100% by default; the owner's and the admin's, sorted, each once.
    expect(limited.alertThresholds).toEqual([80, 100]);
    expect(await owner.portal.setAlertThresholds({ thresholds: [100, 50, 50] })).toMatchObject({
      alertThresholds: [50, 100],
    });
    expect(await admin.accounts.setAlertThresholds({ id: corp.id, thresholds: [] })).toMatchObject({
      alertThresholds: [],
    });
    await expectTrpcError(
      admin.accounts.setAlertThresholds({ id: corp.id, thresholds: [101] }),
      "BAD_REQUEST",
    );

    const small = await createTestAccount(h.rt, "Small Corp", "pro");
    const moved = await expectTrpcError(
      admin.accounts.setPlan({ id: small.id, plan: "enterprise" }),
      "CONFLICT",
    );
    expect(moved.message).toMatch(/set the account's own limits first/);
  });

  it("lists accounts by name, plan and state, sorted as asked", async () => {
    await createTestAccount(h.rt, "Zebra Supplies", "business");
    const all = await admin.accounts.list({ sortBy: "name", sortDirection: "desc" });
    const names = all.map((a) => a.name);
    expect(names).toEqual([...names].sort((x, y) => y.toLowerCase().localeCompare(x.toLowerCase())));
    expect((await admin.accounts.list({ query: "zebra" })).map((a) => a.name)).toEqual(["Zebra Supplies"]);
    expect((await admin.accounts.list({ plan: "business" })).map((a) => a.name)).toEqual(["Zebra Supplies"]);

    const detail = await admin.accounts.get({
      id: (await admin.accounts.list({ query: "zebra" }))[0]?.id as string,
    });
    expect(detail).toMatchObject({ plan: "business", members: 1, state: "active", apiKeys: [] });
    await expectTrpcError(admin.accounts.get({ id: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND");
  });

  it("sums the usage of every key of the account, and of no other account's", async () => {
    const account = await createTestAccount(h.rt, "Busy Shop");
    const other = await createTestAccount(h.rt, "Other Shop");
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    const [front, back] = await Promise.all([
      owner.portal.keys.create({ name: "front" }),
      owner.portal.keys.create({ name: "back" }),
    ]);
    const elsewhere = await h.rt.apiKeys.createInAccount(other.id, { name: "elsewhere" }, "test");
    const now = new Date();
    countRequests(h.rt, front.id, now, 5);
    countRequests(h.rt, back.id, now, 3, "rate_limited");
    countRequests(h.rt, elsewhere.id, now, 7);
    await h.rt.analytics?.flush();
    const usage = await owner.portal.usage({ days: 7 });
    expect(usage.traffic.requestsToday).toBe(5);
    expect(usage.traffic.byOutcome).toEqual(
      expect.arrayContaining([
        { outcome: "2xx", requests: 5 },
        { outcome: "rate_limited", requests: 3 },
      ]),
    );
    expect(Object.fromEntries(usage.keys.map((k) => [k.name, k.requestsToday]))).toEqual({
      front: 5,
      back: 0,
    });
    expect((await admin.accounts.usage({ accountId: account.id, days: 7 })).traffic.requestsToday).toBe(5);
  });

  it("keeps members off the staff list and out of staff management", async () => {
    const account = await createTestAccount(h.rt, "Quiet Shop");
    const users = await admin.users.list();
    expect(users.map((u) => u.email)).not.toContain(account.ownerEmail);
    const member = await databaseOf(h.rt).prisma.user.findUniqueOrThrow({
      where: { email: account.ownerEmail },
    });
    await expectTrpcError(admin.users.setRole({ id: member.id, role: "admin" }), "NOT_FOUND");
    await expectTrpcError(admin.users.setActive({ id: member.id, active: false }), "NOT_FOUND");
  });
});
