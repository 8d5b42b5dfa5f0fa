/**
 * `forAccount` on PGlite and PostgreSQL: every member x every id that is not the account's gives one not_found and
 * changes nothing (docs/contract.md section 7, "Isolation"; docs/architecture.md "Accounts scoped in core").
 */
import { randomUUID } from "node:crypto";
import { loadConfig } from "@petstore/config";
import { AppError } from "@petstore/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountScope } from "../src/accounts/scope.ts";
import { databaseOf } from "../src/database/operations.ts";
import { createLogger } from "../src/logger.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

type Kind = "key" | "endpoint" | "message" | "member" | "order";

/** Own ids the calls below need besides the id under test. */
const own = { endpoint: "", message: "" };

/** Every method of the scope that takes an id: the kind of id and the call (`#…`: a second row of a method). */
const BY_ID: Record<string, { kind: Kind; call: (a: AccountScope, id: string) => Promise<unknown> }> = {
  "keys.get": { kind: "key", call: (a, id) => a.keys.get(id) },
  "keys.roll": { kind: "key", call: (a, id) => a.keys.roll(id, 0, "test") },
  "keys.revoke": { kind: "key", call: (a, id) => a.keys.revoke(id, "test") },
  "keys.changeAllowlist": {
    kind: "key",
    call: (a, id) => a.keys.changeAllowlist(id, ["192.0.2.0/24"], "test"),
  },
  "keys.traffic": { kind: "key", call: (a, id) => a.keys.traffic(id, 7) },
  "keys.recentRequests": { kind: "key", call: (a, id) => a.keys.recentRequests(id) },
  requestLog: { kind: "key", call: (a, keyId) => a.requestLog({ keyId, limit: 10 }) },
  "webhooks.get": { kind: "endpoint", call: (a, id) => a.webhooks.get(id) },
  "webhooks.update": {
    kind: "endpoint",
    call: (a, id) => a.webhooks.update({ id, description: "x" }, "test"),
  },
  "webhooks.enable": { kind: "endpoint", call: (a, id) => a.webhooks.enable(id, "test") },
  "webhooks.disable": { kind: "endpoint", call: (a, id) => a.webhooks.disable(id, "test") },
  "webhooks.rotate": { kind: "endpoint", call: (a, id) => a.webhooks.rotate(id, "test") },
  "webhooks.remove": { kind: "endpoint", call: (a, id) => a.webhooks.remove(id, "test") },
  "webhooks.sendTest": { kind: "endpoint", call: (a, id) => a.webhooks.sendTest(id, "test") },
  "webhooks.deliveryLog": {
    kind: "endpoint",
    call: (a, endpointId) => a.webhooks.deliveryLog({ endpointId, page: 1, pageSize: 20 }),
  },
  "webhooks.replayMessage": {
    kind: "endpoint",
    call: (a, endpointId) => a.webhooks.replayMessage({ messageId: own.message, endpointId }, "test"),
  },
  "webhooks.replayMessage#message": {
    kind: "message",
    call: (a, messageId) => a.webhooks.replayMessage({ messageId, endpointId: own.endpoint }, "test"),
  },
  "webhooks.replayMessage#anywhere": {
    kind: "message",
    call: (a, messageId) => a.webhooks.replayMessage({ messageId }, "test"),
  },
  "webhooks.replayRange": {
    kind: "endpoint",
    call: (a, endpointId) =>
      a.webhooks.replayRange({ endpointId, since: "2026-01-01T00:00:00Z", failedOnly: false }, "test"),
  },
  "webhooks.message": { kind: "message", call: (a, id) => a.webhooks.message(id) },
  setMemberRole: { kind: "member", call: (a, id) => a.setMemberRole({ id, role: "developer" }, "test") },
  removeMember: { kind: "member", call: (a, id) => a.removeMember(id, "test") },
  "orders.get": { kind: "order", call: (a, id) => a.orders.get(Number(id)) },
  "orders.cancel": { kind: "order", call: (a, id) => a.orders.cancel(Number(id), "test") },
};
/** The scope's members that take no id of another object. */
const WITHOUT_ID = [
  "id",
  "get",
  "keys.list",
  "keys.create",
  "webhooks.list",
  "webhooks.create",
  "usage",
  "billing",
  "monthQuota",
  "setAlertThresholds",
  "setRequireTwoFactor",
  "invite",
  "orders.search",
];

/** The scope's members by dotted path (one level of nesting: `keys.get`). */
const membersOf = (scope: AccountScope) =>
  Object.entries(scope).flatMap(([name, value]) =>
    typeof value === "object" ? Object.keys(value).map((inner) => `${name}.${inner}`) : [name],
  );

/** The error `promise` rejects with. */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe.each(["pglite", "postgres"] as const)("an account's scope on %s", (kind) => {
  let rt: Runtime;
  let database: TestDatabase | undefined;
  let a: AccountScope;
  const foreign: Record<Kind, Record<string, string>> = {
    key: {},
    endpoint: {},
    message: {},
    member: {},
    order: {},
  };
  let ownOrder = 0;

  /** Creates an account with its owner signed up; @returns its id and the owner's user id. */
  async function account(name: string, plan: "free" | "pro" = "pro") {
    const email = `${name.toLowerCase().replace(/\W+/g, "-")}@example.com`;
    const created = await rt.accounts.create({ name, plan, ownerEmail: email }, "test");
    const token = created.invitationUrl.split("/").pop() as string;
    await rt.invitations.accept({ token, name, password: "a long enough password" });
    const owner = await databaseOf(rt).prisma.user.findUniqueOrThrow({ where: { email } });
    return { id: created.id, ownerId: owner.id };
  }

  const snapshot = async () => {
    const { prisma } = databaseOf(rt);
    const others = { accountId: { not: a.id } };
    return {
      keys: await prisma.apiKey.findMany({
        where: { OR: [others, { accountId: null }] },
        orderBy: { id: "asc" },
      }),
      endpoints: await prisma.webhookEndpoint.findMany({
        where: { OR: [others, { accountId: null }] },
        orderBy: { id: "asc" },
      }),
      deliveries: await prisma.webhookDelivery.findMany({
        orderBy: [{ eventId: "asc" }, { endpointId: "asc" }],
      }),
      users: await prisma.user.findMany({ orderBy: { id: "asc" } }),
      orders: await prisma.order.findMany({ orderBy: { id: "asc" } }),
      pets: await prisma.pet.findMany({ orderBy: { id: "asc" } }),
    };
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind, "petstore_scope");
    rt = await openRuntime({
      config: loadConfig({
        ...database.env,
        LOG_LEVEL: "silent",
        PASSWORD_HASH_COST: "10",
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
        WEBHOOKS_RETRY_SCHEDULE: "1h",
      }),
      logger: createLogger("silent"),
    });
    const [shopA, shopB] = [await account("Shop A"), await account("Shop B")];
    a = rt.forAccount(shopA.id);
    const b = rt.forAccount(shopB.id);
    const target = {
      url: "http://127.0.0.1:9/hook",
      eventTypes: ["category.created" as const],
      description: "",
    };
    await a.keys.create({ name: "A's key" }, "test");
    foreign.key = {
      ofB: (await b.keys.create({ name: "B's key" }, "test")).id,
      ofTheStore: (await rt.apiKeys.create({ name: "store", plan: "free" }, "test")).id,
      unknown: randomUUID(),
    };
    own.endpoint = (await a.webhooks.create(target, "test")).id;
    own.message = (await a.webhooks.sendTest(own.endpoint, "test")).messageId;
    const ofB = (await b.webhooks.create(target, "test")).id;
    const ofTheStore = (await rt.webhooks.create(target, "test")).id;
    foreign.endpoint = { ofB, ofTheStore, unknown: randomUUID() };
    foreign.message = {
      ofB: (await b.webhooks.sendTest(ofB, "test")).messageId,
      ofTheStore: (await rt.webhooks.sendTest(ofTheStore, "test")).messageId,
      unknown: "msg_0123456789ab0123456789abcdef0123",
    };
    const staff = await rt.users.create(
      { email: "staff@example.com", name: "Sam", role: "staff", password: "a long enough password" },
      "test",
    );
    foreign.member = { ofB: shopB.ownerId, staff: staff.id, unknown: randomUUID() };
    // Orders: the account's own, B's (whose event reaches B's endpoint and the store's only) and a store key's.
    const { prisma } = databaseOf(rt);
    const category = await prisma.category.create({ data: { name: "Scoped dogs" } });
    const pet = async () =>
      Number(
        (await prisma.pet.create({ data: { name: "Rex", categoryId: category.id, status: "available" } })).id,
      );
    const ordersOfB = (await b.webhooks.create({ ...target, eventTypes: ["order.placed"] }, "test")).id;
    const keyOf = async (accountId: string) =>
      (await prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
    ownOrder = (
      await rt.orders
        .of({ accountId: shopA.id })
        .create({ petId: await pet() }, { apiKeyId: await keyOf(shopA.id) })
    ).id;
    const orderOfB = await rt.orders
      .of({ accountId: shopB.id })
      .create({ petId: await pet() }, { apiKeyId: await keyOf(shopB.id) });
    const storeKey = foreign.key.ofTheStore as string;
    const orderOfTheStore = await rt.orders
      .of({ apiKeyId: storeKey })
      .create({ petId: await pet() }, { apiKeyId: storeKey });
    foreign.order = {
      ofB: String(orderOfB.id),
      ofTheStore: String(orderOfTheStore.id),
      unknown: "999999999",
    };
    const placed = await prisma.webhookEvent.findFirstOrThrow({ where: { type: "order.placed" } });
    expect((await rt.webhooks.message(placed.id)).deliveries.map((d) => d.endpointId)).toEqual([ordersOfB]);
    foreign.message.orderOfB = placed.id;
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
  });

  it("has a row for every member of the scope", () => {
    const rows = Object.keys(BY_ID).map((path) => path.split("#")[0]);
    expect([...new Set([...rows, ...WITHOUT_ID])].sort()).toEqual(membersOf(a).sort());
  });

  it.each(Object.keys(BY_ID))(
    "%s refuses every id that is not the account's as an unknown one",
    async (path) => {
      const row = BY_ID[path] as (typeof BY_ID)[string];
      const before = await snapshot();
      const { unknown, ...others } = foreign[row.kind] as Record<string, string>;
      const expected = (await refusal(row.call(a, unknown as string))) as AppError;
      expect(expected).toBeInstanceOf(AppError);
      expect(expected.code).toBe("not_found");
      for (const [name, id] of Object.entries(others)) {
        const error = (await refusal(row.call(a, id))) as AppError;
        expect(error, name).toBeInstanceOf(AppError);
        expect([error.code, error.message.replace(id, "<id>")], name).toEqual([
          "not_found",
          expected.message.replace(unknown as string, "<id>"),
        ]);
      }
      expect(await snapshot()).toEqual(before);
    },
  );

  it("lists the account's own rows only, and replays a message to the account's endpoints only", async () => {
    expect((await a.keys.list()).map((k) => k.name)).toEqual(["A's key"]);
    expect(JSON.stringify(await a.keys.list())).not.toContain("createdBy");
    expect((await a.webhooks.list()).map((e) => e.id)).toEqual([own.endpoint]);
    expect((await a.webhooks.message(own.message)).deliveries.map((d) => d.endpointId)).toEqual([
      own.endpoint,
    ]);
    await rt.categories.create("Scoped cats", "test");
    const { id: messageId } = await databaseOf(rt).prisma.webhookEvent.findFirstOrThrow({
      where: { type: "category.created" },
    });
    const shown = await a.webhooks.message(messageId);
    expect(shown.deliveries.map((d) => d.endpointId)).toEqual([own.endpoint]);
    expect(await a.webhooks.replayMessage({ messageId }, "test")).toBe(1);
    expect((await rt.webhooks.message(messageId)).deliveries).toHaveLength(3);
    expect(await rt.webhooks.replayMessage({ messageId }, "test")).toBe(3);
  });

  it("lists the account's own orders only, and cancels its own", async () => {
    expect((await a.orders.search({ page: 1, pageSize: 20 })).rows.map((o) => o.id)).toEqual([ownOrder]);
    expect((await a.orders.cancel(ownOrder, "user:owner@shop-a.example")).status).toBe("cancelled");
  });

  it("refuses to create or roll keys of a suspended account, also to the store's key service", async () => {
    const shop = await account("Paused Shop");
    const scope = rt.forAccount(shop.id);
    const key = await scope.keys.create({ name: "till" }, "test");
    await rt.accounts.setSuspended({ id: shop.id, suspended: true }, "test");
    const refused = [
      await refusal(scope.keys.create({ name: "more" }, "test")),
      await refusal(scope.keys.roll(key.id, 0, "test")),
      await refusal(rt.apiKeys.roll(key.id, 0, "test")),
    ];
    expect(refused.map((e) => (e as AppError).code)).toEqual(["conflict", "conflict", "conflict"]);
    expect((await scope.keys.revoke(key.id, "test")).state).toBe("revoked");
  });
});
