/**
 * Setting a key's IP allowlist (docs/contract.md section 2, "IP allowlists"): admins on any key, members on their
 * account's keys in the portal; entries are normalized, a bad one is named in the field's error, each change is
 * audited (`apiKey.allowlist`, before and after) and the verifier applies it at once on this instance.
 */
import { databaseOf } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { createTestAccount, expectTrpcError, shapeOf, useHarness } from "./support";

describe("IP allowlists (dashboard and portal)", () => {
  const h = useHarness();
  const admin = h.as("admin@example.com");

  const auditOf = (id: string) =>
    databaseOf(h.rt).prisma.auditLog.findMany({
      where: { action: "apiKey.allowlist", entityId: id },
      orderBy: { id: "asc" },
    });

  it("lets an admin set, normalize and lift a key's allowlist, audited", async () => {
    const issued = await admin.apiKeys.create({ name: "Fenced", plan: "pro" });
    const changed = await admin.apiKeys.changeAllowlist({
      id: issued.id,
      allowedIps: ["192.0.2.77/24", "2001:DB8::/32", "192.0.2.0/24"],
    });
    expect(changed.allowedIps).toEqual(["192.0.2.0/24", "2001:db8::/32"]);
    expect((await admin.apiKeys.get({ id: issued.id })).allowedIps).toEqual([
      "192.0.2.0/24",
      "2001:db8::/32",
    ]);
    const caller = await h.rt.apiKeys.authenticate(issued.key);
    expect(caller?.allowlist?.entries).toEqual(["192.0.2.0/24", "2001:db8::/32"]);

    await admin.apiKeys.changeAllowlist({ id: issued.id, allowedIps: [] });
    expect((await h.rt.apiKeys.authenticate(issued.key))?.allowlist).toBeNull();
    const audit = await auditOf(issued.id);
    expect(audit.map((a) => [a.actor, (a.before as { allowedIps: string[] }).allowedIps])).toEqual([
      ["user:admin@example.com", []],
      ["user:admin@example.com", ["192.0.2.0/24", "2001:db8::/32"]],
    ]);
    expect(audit[1]?.after).toMatchObject({ allowedIps: [] });
  });

  it("names a bad entry and changes nothing", async () => {
    const issued = await admin.apiKeys.create({ name: "Typo", plan: "free" });
    const error = await expectTrpcError(
      admin.apiKeys.changeAllowlist({ id: issued.id, allowedIps: ["192.0.2.0/24", "192.0.2.300"] }),
      "BAD_REQUEST",
    );
    expect(shapeOf(error).data.details).toEqual([
      {
        path: "allowedIps",
        message:
          '"192.0.2.300" is not an IPv4 or IPv6 address or CIDR range (e.g. 192.0.2.0/24, 2001:db8::/32)',
      },
    ]);
    expect((await admin.apiKeys.get({ id: issued.id })).allowedIps).toEqual([]);
  });

  it("lets a member set their account's key's allowlist in the portal, audited under the member", async () => {
    const account = await createTestAccount(h.rt, "Fence Co");
    const owner = (await h.signedIn(account.ownerEmail)).caller;
    const issued = await owner.portal.keys.create({ name: "Server" });
    const changed = await owner.portal.keys.changeAllowlist({ id: issued.id, allowedIps: ["203.0.113.5"] });
    expect(changed).toMatchObject({ id: issued.id, allowedIps: ["203.0.113.5"] });
    expect(changed).not.toHaveProperty("createdBy");
    expect((await owner.portal.keys.list()).find((k) => k.id === issued.id)?.allowedIps).toEqual([
      "203.0.113.5",
    ]);
    const [entry] = await auditOf(issued.id);
    expect(entry?.actor).toBe(`user:${account.ownerEmail}`);
  });
});
