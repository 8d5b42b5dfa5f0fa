/**
 * Managing an account's members (docs/contract.md section 7, "Accounts, members and invitations"): owners, and
 * admins on the account's page, change a member's role and remove members. The new role applies to the member's
 * next call; a removed member's sessions end at once and their email may be invited again; the last owner can be
 * neither demoted nor removed (CONFLICT), also when two owners demote or remove each other at the same moment;
 * every change is in the account's audit entries.
 */
import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import {
  createTestAccount,
  expectTrpcError,
  invitationToken,
  PASSWORD,
  type TestAccount,
  useHarness,
} from "./support";

describe("members of an account", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");

  /** Invites `email` to `account` with `role`, accepts, and returns the member's id. */
  async function addMember(account: TestAccount, email: string, role: "owner" | "developer") {
    const invited = await h.rt.invitations.invite(account.id, { email, role }, "test");
    await h.rt.invitations.accept({
      token: invitationToken(invited.invitationUrl),
      name: `Member ${email}`,
      password: PASSWORD,
    });
    return (await databaseOf(h.rt).prisma.user.findUniqueOrThrow({ where: { email } })).id;
  }

  const idOf = async (email: string) =>
    (await databaseOf(h.rt).prisma.user.findUniqueOrThrow({ where: { email } })).id;

  const auditOf = (accountId: string) =>
    databaseOf(h.rt).prisma.auditLog.findMany({
      where: { entityType: "account", entityId: accountId, action: { startsWith: "account." } },
      orderBy: { id: "asc" },
    });

  it("makes a developer an owner and back, applying the role to their next call, audited", async () => {
    const account = await createTestAccount(h.rt, "Role Shop");
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    const devId = await addMember(account, "dev@role.example", "developer");
    // Each call of the member is a request of its own, which reads the session and its user's role afresh.
    const { token } = await h.signedIn("dev@role.example");
    const dev = () => h.withToken(token);
    const invite = { email: "x@role.example", role: "developer" } as const;
    await expectTrpcError((await dev()).portal.invite(invite), "FORBIDDEN");

    expect(await owner.portal.setMemberRole({ id: devId, role: "owner" })).toMatchObject({
      id: devId,
      role: "owner",
    });
    await (await dev()).portal.invite(invite);
    expect((await (await dev()).portal.account()).role).toBe("owner");
    // An owner may make themselves a developer while another owner stays.
    await (await dev()).portal.setMemberRole({ id: devId, role: "developer" });
    await expectTrpcError((await dev()).portal.setMemberRole({ id: devId, role: "owner" }), "FORBIDDEN");
    expect((await owner.portal.account()).memberList.map((m) => [m.email, m.role]).sort()).toEqual([
      ["dev@role.example", "developer"],
      [account.ownerEmail, "owner"],
    ]);
    // Setting the role a member has changes nothing and writes nothing.
    await owner.portal.setMemberRole({ id: devId, role: "developer" });

    const entries = (await auditOf(account.id)).filter((e) => e.action === "account.setMemberRole");
    expect(entries.map((e) => [e.actor, e.before, e.after])).toEqual([
      [
        `user:${account.ownerEmail}`,
        { member: "dev@role.example", memberId: devId, role: "developer" },
        { member: "dev@role.example", memberId: devId, role: "owner" },
      ],
      [
        "user:dev@role.example",
        { member: "dev@role.example", memberId: devId, role: "owner" },
        { member: "dev@role.example", memberId: devId, role: "developer" },
      ],
    ]);
  });

  it("refuses to demote or remove the last owner, in the portal and on the admin page, and changes nothing", async () => {
    const account = await createTestAccount(h.rt, "Lone Shop");
    const { caller: owner, token } = await h.signedIn(account.ownerEmail);
    const ownerId = await idOf(account.ownerEmail);
    await addMember(account, "dev@lone.example", "developer");
    const refusals = [
      () => owner.portal.setMemberRole({ id: ownerId, role: "developer" }),
      () => owner.portal.removeMember({ id: ownerId }),
      () => admin.accounts.setMemberRole({ accountId: account.id, id: ownerId, role: "developer" }),
      () => admin.accounts.removeMember({ accountId: account.id, id: ownerId }),
    ];
    for (const refused of refusals) {
      const error = await expectTrpcError(refused(), "CONFLICT");
      expect(error.message).toMatch(/is the account's last owner and cannot be (made a developer|removed)/);
    }
    expect((await (await h.withToken(token)).portal.account()).role).toBe("owner");
    expect((await admin.accounts.get({ id: account.id })).memberList.map((m) => m.role).sort()).toEqual([
      "developer",
      "owner",
    ]);
    expect((await auditOf(account.id)).map((e) => e.action)).toEqual(["account.create"]);
  });

  it("leaves exactly one owner when two owners demote or remove each other at once", async () => {
    const account = await createTestAccount(h.rt, "Feud Shop");
    const first = (await h.signedIn(account.ownerEmail)).caller;
    const firstId = await idOf(account.ownerEmail);
    const secondId = await addMember(account, "second@feud.example", "owner");
    const second = (await h.signedIn("second@feud.example")).caller;
    const demotions = await Promise.allSettled([
      first.portal.setMemberRole({ id: secondId, role: "developer" }),
      second.portal.setMemberRole({ id: firstId, role: "developer" }),
    ]);
    expect(demotions.filter((d) => d.status === "fulfilled")).toHaveLength(1);
    const owners = async () =>
      (await admin.accounts.get({ id: account.id })).memberList.filter((m) => m.role === "owner");
    expect(await owners()).toHaveLength(1);

    const thirdId = await addMember(account, "third@feud.example", "owner");
    const [remaining] = await owners();
    const removals = await Promise.allSettled([
      admin.accounts.removeMember({ accountId: account.id, id: thirdId }),
      admin.accounts.removeMember({ accountId: account.id, id: remaining?.id as string }),
    ]);
    expect(removals.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = removals.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason.code).toBe("CONFLICT");
    expect(await owners()).toHaveLength(1);
  });

  it("ends a removed member's sessions at once, audited, and lets their email be invited again", async () => {
    const account = await createTestAccount(h.rt, "Parting Shop");
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    const devId = await addMember(account, "leaver@parting.example", "developer");
    const first = await h.signedIn("leaver@parting.example");
    const second = await h.signedIn("leaver@parting.example");
    const key = await first.caller.portal.keys.create({ name: "made by the leaver" });

    expect(await owner.portal.removeMember({ id: devId })).toMatchObject({
      id: devId,
      email: "leaver@parting.example",
      role: "developer",
    });
    for (const { token } of [first, second]) {
      await expectTrpcError((await h.withToken(token)).portal.account(), "UNAUTHORIZED");
      // Their browsers' next sign-in page says they were removed; another's ended session says nothing.
      expect(await h.rt.sessions.endedReason(token)).toBe("removed");
    }
    expect(await h.rt.sessions.endedReason("someone-else")).toBeUndefined();
    expect(await databaseOf(h.rt).prisma.session.count({ where: { userId: devId } })).toBe(0);
    await expectTrpcError(h.signedIn("leaver@parting.example"), "UNAUTHORIZED");
    const account_ = await owner.portal.account();
    expect(account_.memberList.map((m) => m.email)).toEqual([account.ownerEmail]);
    expect(account_.members).toBe(1);
    // What the member made stays with the account.
    expect((await owner.portal.keys.list()).map((k) => k.id)).toEqual([key.id]);
    await expectTrpcError(owner.portal.removeMember({ id: devId }), "NOT_FOUND");

    const [entry] = (await auditOf(account.id)).filter((e) => e.action === "account.removeMember");
    expect(entry).toMatchObject({
      actor: `user:${account.ownerEmail}`,
      before: {
        member: "leaver@parting.example",
        memberId: devId,
        name: "Member leaver@parting.example",
        role: "developer",
      },
      after: { sessionsEnded: 2 },
    });

    await addMember(account, "leaver@parting.example", "developer");
    expect((await owner.portal.account()).members).toBe(2);
  });

  it("lets an owner leave while another owner stays, and admins remove members of any account", async () => {
    const account = await createTestAccount(h.rt, "Handover Shop");
    const { caller: owner, token } = await h.signedIn(account.ownerEmail);
    const ownerId = await idOf(account.ownerEmail);
    const successorId = await addMember(account, "next@handover.example", "owner");
    await owner.portal.removeMember({ id: ownerId });
    await expectTrpcError((await h.withToken(token)).portal.account(), "UNAUTHORIZED");

    const devId = await addMember(account, "dev@handover.example", "developer");
    await admin.accounts.removeMember({ accountId: account.id, id: devId });
    await admin.accounts.setMemberRole({ accountId: account.id, id: successorId, role: "owner" });
    const detail = await admin.accounts.get({ id: account.id });
    expect(detail.memberList.map((m) => m.email)).toEqual(["next@handover.example"]);
    const entries = await auditOf(account.id);
    expect(entries.filter((e) => e.action === "account.removeMember").map((e) => e.actor)).toEqual([
      `user:${account.ownerEmail}`,
      "user:admin@example.com",
    ]);
    await expectTrpcError(
      admin.accounts.removeMember({ accountId: "00000000-0000-4000-8000-000000000000", id: successorId }),
      "NOT_FOUND",
    );
  });
});
