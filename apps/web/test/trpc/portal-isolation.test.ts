/**
 * One consumer account never sees or changes another's data (docs/contract.md section 7): every portal procedure
 * that takes an object id is called by the owner and the developer of account A with every kind of id that is not
 * A's (a live and a revoked key of account B, a key issued by an admin outside any account, an id that does not
 * exist). Each call is refused with NOT_FOUND and the same message as for the id that does not exist, and nothing
 * of B's changes. The procedures that take no id are checked to show nothing of B's.
 */
import { randomUUID } from "node:crypto";
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../../src/server/trpc/router";
import {
  type Caller,
  createTestAccount,
  expectTrpcError,
  type Harness,
  openHarness,
  PASSWORD,
  type TestAccount,
} from "./support";

/** Every portal procedure that takes an object id, and its input for id `id`. */
const BY_ID: Record<string, (id: string) => unknown> = {
  "portal.keys.roll": (id) => ({ id, graceSeconds: 0 }),
  "portal.keys.revoke": (id) => ({ id }),
  "portal.keys.traffic": (id) => ({ id, days: 7 }),
  "portal.keys.recentRequests": (id) => ({ id }),
  "portal.requestLog": (keyId) => ({ keyId }),
};
/** The portal procedures that take no object id: they read or write the caller's own account only. */
const WITHOUT_ID = ["portal.account", "portal.keys.list", "portal.keys.create", "portal.invite"];
/** Public procedures whose input is an invitation's secret token: the token is the permission. */
const BY_TOKEN = ["portal.invitation", "portal.acceptInvitation"];

const call = (caller: Caller, path: string, input?: unknown) =>
  // biome-ignore lint/suspicious/noExplicitAny: a procedure found by its dotted path
  (
    path.split(".").reduce<any>((node, part) => node?.[part], caller) as (input?: unknown) => Promise<unknown>
  )(input);

describe("portal isolation between accounts", () => {
  let h: Harness;
  let a: TestAccount;
  let b: TestAccount;
  const members: Record<string, Caller> = {};
  const foreign: Record<string, string> = {};

  const keysOfB = () =>
    databaseOf(h.rt).prisma.apiKey.findMany({ where: { accountId: b.id }, orderBy: { id: "asc" } });

  beforeAll(async () => {
    h = await openHarness();
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
  });
  afterAll(() => h?.close());

  it("has a row for every portal procedure", () => {
    const portal = Object.keys(appRouter._def.procedures).filter((p) => p.startsWith("portal."));
    expect(portal.sort()).toEqual([...Object.keys(BY_ID), ...WITHOUT_ID, ...BY_TOKEN].sort());
  });

  const cases = Object.keys(BY_ID).flatMap((path) =>
    ["owner", "developer"].flatMap((member) =>
      ["liveKeyOfB", "revokedKeyOfB", "keyOutsideAccounts", "unknownKey"].map((kind) => ({
        path,
        member,
        kind,
      })),
    ),
  );

  it.each(cases)("$path by A's $member with $kind: NOT_FOUND, told as for an unknown id", async (c) => {
    const before = await keysOfB();
    const id = foreign[c.kind] as string;
    const error = await expectTrpcError(
      call(members[c.member] as Caller, c.path, BY_ID[c.path]?.(id)),
      "NOT_FOUND",
    );
    expect(error.message.replace(id, "<id>")).toBe("No API key <id>.");
    expect(await keysOfB()).toEqual(before);
  });

  it("lists and the account view show nothing of another account", async () => {
    for (const caller of Object.values(members)) {
      const keys = await caller.portal.keys.list();
      expect(keys.map((k) => k.name)).toEqual(["A's own key"]);
      const account = await caller.portal.account();
      expect(account.id).toBe(a.id);
      expect(JSON.stringify(account)).not.toContain(b.id);
      expect(account.memberList.map((m) => m.email).sort()).toEqual([a.ownerEmail, "dev@a.example"].sort());
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
});
