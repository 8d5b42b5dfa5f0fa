/**
 * Every portal procedure x every kind of id that is not the caller's account's: one NOT_FOUND, nothing changed
 * (docs/contract.md section 7, "Isolation"; docs/architecture.md "Accounts scoped in core").
 */
import { randomUUID } from "node:crypto";
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { createCallerFactory, memberProcedure, router } from "../../src/server/trpc/init";
import { appRouter } from "../../src/server/trpc/router";
import {
  type Caller,
  callPath,
  createTestAccount,
  expectTrpcError,
  type Harness,
  openHarness,
  PASSWORD,
  type TestAccount,
} from "./support";

type Kind = "key" | "endpoint" | "message" | "member" | "order" | "pet";

/**
 * Every portal procedure that takes an object id: the kind of id, its input for id `id`, and whether only the
 * account's owners may call it (`path#…`: another row of the same procedure).
 */
const BY_ID: Record<string, { kind: Kind; input: (id: string) => unknown; owners?: true }> = {
  "portal.keys.get": { kind: "key", input: (id) => ({ id }) },
  "portal.keys.roll": { kind: "key", input: (id) => ({ id, graceSeconds: 0 }) },
  "portal.keys.revoke": { kind: "key", input: (id) => ({ id }) },
  "portal.keys.changeAllowlist": { kind: "key", input: (id) => ({ id, allowedIps: ["192.0.2.0/24"] }) },
  "portal.keys.traffic": { kind: "key", input: (id) => ({ id, days: 7 }) },
  "portal.keys.recentRequests": { kind: "key", input: (id) => ({ id }) },
  "portal.requestLog": { kind: "key", input: (keyId) => ({ keyId }) },
  "portal.webhooks.get": { kind: "endpoint", input: (id) => ({ id }) },
  "portal.webhooks.update": { kind: "endpoint", input: (id) => ({ id, description: "taken over" }) },
  "portal.webhooks.enable": { kind: "endpoint", input: (id) => ({ id }) },
  "portal.webhooks.disable": { kind: "endpoint", input: (id) => ({ id }) },
  "portal.webhooks.rotate": { kind: "endpoint", input: (id) => ({ id }) },
  "portal.webhooks.remove": { kind: "endpoint", input: (id) => ({ id }) },
  "portal.webhooks.sendTest": { kind: "endpoint", input: (id) => ({ id }) },
  "portal.webhooks.deliveryLog": { kind: "endpoint", input: (endpointId) => ({ endpointId }) },
  "portal.webhooks.replayMessage": {
    kind: "endpoint",
    input: (endpointId) => ({ messageId: ownMessage, endpointId }),
  },
  "portal.webhooks.replayMessage#message": {
    kind: "message",
    input: (messageId) => ({ messageId, endpointId: ownEndpoint }),
  },
  "portal.webhooks.replayMessage#anywhere": { kind: "message", input: (messageId) => ({ messageId }) },
  "portal.webhooks.replayRange": {
    kind: "endpoint",
    input: (endpointId) => ({ endpointId, since: "2026-01-01T00:00:00Z" }),
  },
  "portal.webhooks.message": { kind: "message", input: (id) => ({ id }) },
  "portal.orders.get": { kind: "order", input: (id) => ({ id: Number(id) }) },
  "portal.orders.cancel": { kind: "order", input: (id) => ({ id: Number(id) }) },
  "portal.setMemberRole": { kind: "member", input: (id) => ({ id, role: "developer" }), owners: true },
  "portal.removeMember": { kind: "member", input: (id) => ({ id }), owners: true },
};
/** The portal procedures that take no object id: they read or write the caller's own account only. */
const WITHOUT_ID = [
  "portal.account",
  "portal.keys.list",
  "portal.keys.create",
  "portal.invite",
  "portal.webhooks.list",
  "portal.webhooks.create",
  "portal.usage",
  "portal.monthQuota",
  "portal.setAlertThresholds",
  "portal.setRequireTwoFactor",
];
/**
 * Portal procedures whose object ids are filters of a search: another account's id finds what an unknown id finds,
 * nothing (`kind`'s foreign ids, as `field`).
 */
const BY_FILTER: Record<string, { kind: Kind; field: string }[]> = {
  "portal.orders.search": [
    { kind: "order", field: "id" },
    { kind: "pet", field: "petId" },
  ],
};
/** Public procedures whose input is an invitation's secret token: the token is the permission. */
const BY_TOKEN = ["portal.invitation", "portal.acceptInvitation"];

/** The ids of each kind that are not account A's, and the refusal an unknown id of the kind gets. */
const FOREIGN: Record<Kind, { kinds: string[]; message: string }> = {
  key: {
    kinds: ["liveKeyOfB", "revokedKeyOfB", "keyOutsideAccounts", "unknownKey"],
    message: "No API key <id>.",
  },
  endpoint: {
    kinds: ["endpointOfB", "storeEndpoint", "unknownEndpoint"],
    message: "No webhook endpoint with id <id>.",
  },
  message: {
    kinds: ["messageOfB", "storeMessage", "unknownMessage"],
    message: "No webhook message with id <id>.",
  },
  order: {
    kinds: ["orderOfB", "orderOutsideAccounts", "unknownOrder"],
    message: "No order with id <id>.",
  },
  pet: { kinds: ["petOrderedByB", "petOrderedOutsideAccounts"], message: "No animal <id>." },
  member: {
    kinds: ["ownerOfB", "developerOfB", "staffUser", "adminUser", "unknownMember"],
    message: "No member <id>.",
  },
};

/** What A's developer gets from a procedure of the owners, whatever the id. */
const OWNERS_ONLY = "Only the account's owners may do this.";

/** An endpoint of A's and a test message of it (replayMessage's other id). */
let ownEndpoint = "";
let ownMessage = "";
/** An order of A's (what the search filters find when the id is A's). */
let ownOrder = { id: 0, petId: 0 };

describe("portal isolation between accounts", () => {
  let h: Harness;
  let a: TestAccount;
  let b: TestAccount;
  const members: Record<string, Caller> = {};
  const foreign: Record<string, string> = {};

  const keysOfB = () =>
    databaseOf(h.rt).prisma.apiKey.findMany({ where: { accountId: b.id }, orderBy: { id: "asc" } });

  beforeAll(async () => {
    h = await openHarness({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true", WEBHOOKS_RETRY_SCHEDULE: "1h" });
    a = await createTestAccount(h.rt, "Shop A", "pro");
    b = await createTestAccount(h.rt, "Shop B", "pro");
    const invited = await h.rt.invitations.invite(
      a.id,
      { email: "dev@a.example", role: "developer" },
      "test",
    );
    await h.rt.invitations.accept({
      token: invited.invitationUrl.split("/").pop() ?? "",
      name: "Dev of A",
      password: PASSWORD,
    });
    const devOfB = await h.rt.invitations.invite(b.id, { email: "dev@b.example", role: "developer" }, "test");
    await h.rt.invitations.accept({
      token: devOfB.invitationUrl.split("/").pop() ?? "",
      name: "Dev of B",
      password: PASSWORD,
    });
    members.owner = (await h.signedIn(a.ownerEmail)).caller;
    members.developer = (await h.signedIn("dev@a.example")).caller;
    const ownerOfB = (await h.signedIn(b.ownerEmail)).caller;
    await ownerOfB.portal.keys.create({ name: "A key of B" });
    foreign.liveKeyOfB = (await ownerOfB.portal.keys.create({ name: "Live key of B" })).id;
    foreign.revokedKeyOfB = (await ownerOfB.portal.keys.create({ name: "Revoked key of B" })).id;
    await ownerOfB.portal.keys.revoke({ id: foreign.revokedKeyOfB });
    foreign.keyOutsideAccounts = (
      await h.rt.apiKeys.create({ name: "Admin's key", plan: "free" }, "test")
    ).id;
    foreign.unknownKey = randomUUID();
    await members.owner.portal.keys.create({ name: "A's own key" });
    const target = { url: "http://127.0.0.1:9/hook", eventTypes: ["pet.created" as const], description: "" };
    foreign.endpointOfB = (await ownerOfB.portal.webhooks.create(target)).id;
    foreign.messageOfB = (await ownerOfB.portal.webhooks.sendTest({ id: foreign.endpointOfB })).messageId;
    foreign.storeEndpoint = (await h.rt.webhooks.create(target, "test")).id;
    foreign.storeMessage = (await h.rt.webhooks.sendTest(foreign.storeEndpoint, "test")).messageId;
    foreign.unknownEndpoint = randomUUID();
    foreign.unknownMessage = "msg_0123456789ab0123456789abcdef0123";
    const userId = async (email: string) =>
      (await databaseOf(h.rt).prisma.user.findUniqueOrThrow({ where: { email } })).id;
    foreign.ownerOfB = await userId(b.ownerEmail);
    foreign.developerOfB = await userId("dev@b.example");
    foreign.staffUser = h.staff.id;
    foreign.adminUser = h.admin.id;
    foreign.unknownMember = randomUUID();
    const [forB, forOutside, forA] = await databaseOf(h.rt).prisma.pet.findMany({
      where: { status: "available" },
      orderBy: { id: "asc" },
      take: 3,
    });
    const orderOfB = await h.rt.orders
      .of({ accountId: b.id })
      .create({ petId: Number(forB?.id) }, { apiKeyId: foreign.liveKeyOfB });
    foreign.orderOfB = String(orderOfB.id);
    foreign.petOrderedByB = String(orderOfB.petId);
    const outside = await h.rt.orders
      .of({ apiKeyId: foreign.keyOutsideAccounts })
      .create({ petId: Number(forOutside?.id) }, { apiKeyId: foreign.keyOutsideAccounts });
    foreign.orderOutsideAccounts = String(outside.id);
    foreign.petOrderedOutsideAccounts = String(outside.petId);
    const keyOfA = (await members.owner.portal.keys.list())[0]?.id as string;
    ownOrder = await h.rt.orders
      .of({ accountId: a.id })
      .create({ petId: Number(forA?.id) }, { apiKeyId: keyOfA });
    foreign.unknownOrder = "987654321";
    ownEndpoint = (await members.owner.portal.webhooks.create(target)).id;
    ownMessage = (await members.owner.portal.webhooks.sendTest({ id: ownEndpoint })).messageId;
  });
  afterAll(() => h?.close());

  it("has a row for every portal procedure", () => {
    const portal = Object.keys(appRouter._def.procedures).filter((p) => p.startsWith("portal."));
    const rows = new Set(Object.keys(BY_ID).map((path) => path.split("#")[0]));
    expect(portal.sort()).toEqual([...rows, ...Object.keys(BY_FILTER), ...WITHOUT_ID, ...BY_TOKEN].sort());
    expect(cases.length).toBe(166);
  });

  const snapshotOfOthers = async () => {
    const prisma = databaseOf(h.rt).prisma;
    return {
      keys: await keysOfB(),
      endpoints: await prisma.webhookEndpoint.findMany({
        where: { id: { in: [foreign.endpointOfB as string, foreign.storeEndpoint as string] } },
        orderBy: { id: "asc" },
      }),
      deliveries: await prisma.webhookDelivery.count({
        where: { endpointId: { in: [foreign.endpointOfB as string, foreign.storeEndpoint as string] } },
      }),
      users: await prisma.user.findMany({
        where: { OR: [{ accountId: b.id }, { accountId: null }] },
        orderBy: { id: "asc" },
      }),
      sessions: await prisma.session.count(),
      orders: await prisma.order.findMany({
        where: { accountId: { not: a.id } },
        orderBy: { id: "asc" },
      }),
    };
  };

  const cases = Object.entries(BY_ID).flatMap(([path, { kind }]) =>
    ["owner", "developer"].flatMap((member) => FOREIGN[kind].kinds.map((id) => ({ path, member, id }))),
  );

  it.each(cases)("$path by A's $member with $id: refused as for an unknown id", async (c) => {
    const before = await snapshotOfOthers();
    const row = BY_ID[c.path] as (typeof BY_ID)[string];
    const id = foreign[c.id] as string;
    const forbidden = row.owners && c.member === "developer";
    const error = await expectTrpcError(
      callPath(members[c.member] as Caller, c.path.split("#")[0] as string, row.input(id)),
      forbidden ? "FORBIDDEN" : "NOT_FOUND",
    );
    expect(error.message.replace(id, "<id>")).toBe(forbidden ? OWNERS_ONLY : FOREIGN[row.kind].message);
    expect(await snapshotOfOthers()).toEqual(before);
  });

  const filterCases = Object.entries(BY_FILTER).flatMap(([path, filters]) =>
    filters.flatMap(({ kind, field }) =>
      FOREIGN[kind].kinds.map((id) => ({ path, field, id, member: "developer" })),
    ),
  );

  it.each(filterCases)(
    "$path by A's $member filtered by $field = $id: nothing, as for an unknown id",
    async (c) => {
      const before = await snapshotOfOthers();
      const page = await callPath(members[c.member] as Caller, c.path, { [c.field]: Number(foreign[c.id]) });
      expect(page).toEqual({ rows: [], total: 0, totalExact: true });
      expect(await snapshotOfOthers()).toEqual(before);
    },
  );

  it("finds A's own order by the same filters", async () => {
    for (const filter of [{ id: ownOrder.id }, { petId: ownOrder.petId }]) {
      const page = await (members.developer as Caller).portal.orders.search(filter);
      expect(page.rows.map((o) => o.id)).toEqual([ownOrder.id]);
    }
  });

  it("lists and the account view show nothing of another account", async () => {
    for (const caller of Object.values(members)) {
      const keys = await caller.portal.keys.list();
      expect(keys.map((k) => k.name)).toEqual(["A's own key"]);
      const account = await caller.portal.account();
      expect(account.id).toBe(a.id);
      expect(JSON.stringify(account)).not.toContain(b.id);
      expect(account.memberList.map((m) => m.email).sort()).toEqual([a.ownerEmail, "dev@a.example"].sort());
      const endpoints = await caller.portal.webhooks.list();
      expect(endpoints.map((e) => e.accountId)).toEqual([a.id]);
      const message = await caller.portal.webhooks.message({ id: ownMessage });
      expect(message.deliveries.map((d) => d.endpointId)).toEqual([endpoints[0]?.id]);
    }
  });

  it("creates keys and invitations in the caller's own account only", async () => {
    const issued = await (members.developer as Caller).portal.keys.create({ name: "Dev's key" });
    const row = await databaseOf(h.rt).prisma.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
    expect(row.accountId).toBe(a.id);
    const invitation = await (members.owner as Caller).portal.invite({
      email: "new@a.example",
      role: "developer",
    });
    const stored = await databaseOf(h.rt).prisma.invitation.findUniqueOrThrow({
      where: { id: invitation.id },
    });
    expect(stored.accountId).toBe(a.id);
    await (members.developer as Caller).portal.keys.revoke({ id: issued.id });
  });

  it("gives member procedures their account's scope and no runtime: reaching past it neither type-checks nor runs", async () => {
    const leaky = router({
      // @ts-expect-error a member procedure's `ctx.rt` is `never` (init.ts memberProcedure)
      keys: memberProcedure.query(({ ctx }) => ctx.rt.apiKeys.list()),
    });
    const { token } = await h.signedIn(a.ownerEmail);
    const caller = createCallerFactory(leaky)(await createInnerContext({ rt: h.rt, sessionToken: token }));
    await expectTrpcError(caller.keys(), "INTERNAL_SERVER_ERROR");
  });
});
