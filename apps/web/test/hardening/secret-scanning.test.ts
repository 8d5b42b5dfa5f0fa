/**
 * Leaked keys (docs/contract.md section 2, "Leaked keys"): GitHub's secret-scanning reports at
 * /api/hooks/github/secret-scanning, signed here with a P-256 key pair of the test's own that the configuration
 * names; each reported live key is revoked before the answer, audited, announced by a signed `key.leaked` event to
 * its account's endpoints and the store's and mailed to its owners; a report with a bad signature changes nothing;
 * LEAKED_KEYS_ACTION=flag only marks; the dashboard's "Mark as leaked" does the same. No token is logged or stored.
 */
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { ConfigError, loadConfig } from "@petstore/config";
import { createLogger, generateApiKey, openRuntime, type Runtime } from "@petstore/core";
import { databaseOf, startWebhookReceiver, type WebhookReceiver } from "@petstore/core/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useInProcessApp } from "./in-process.ts";
import { ADMIN } from "./support.ts";

const HOOK = "/api/hooks/github/secret-scanning";

/** GitHub's key list as the operator saves it, with the test's own keys. */
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-secret-scanning-"));
const pair = () => generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const github = pair();
const stranger = pair();
const keysFile = path.join(folder, "github-keys.json");
fs.writeFileSync(
  keysFile,
  JSON.stringify({
    public_keys: [
      {
        key_identifier: "gh-current",
        key: github.publicKey.export({ type: "spki", format: "pem" }),
        is_current: true,
      },
    ],
  }),
);

const logged: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split("\n").filter(Boolean)) logged.push(JSON.parse(line));
    done();
  },
});

/** A report's body and its headers, signed by `key` (GitHub's unless told) under identifier `id`. */
function signed(matches: object[], key: KeyObject = github.privateKey, id = "gh-current") {
  const body = JSON.stringify(matches);
  return {
    body,
    headers: {
      "Content-Type": "application/json",
      "Github-Public-Key-Identifier": id,
      "Github-Public-Key-Signature": sign("sha256", Buffer.from(body), key).toString("base64"),
    },
  };
}

describe("GitHub secret-scanning reports", () => {
  const app = useInProcessApp(
    {
      SECRET_SCANNING_KEYS_FILE: keysFile,
      LOG_LEVEL: "info",
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOKS_POLL_INTERVAL_MS: "100",
    },
    { logger: createLogger("info", sink) },
  );
  let receiver: WebhookReceiver;
  let flagging: Runtime;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    app.rt.webhooks.start();
    flagging = await openRuntime({
      config: loadConfig({
        DATABASE_URL: app.db.url,
        SECRET_SCANNING_KEYS_FILE: keysFile,
        LEAKED_KEYS_ACTION: "flag",
        LOG_LEVEL: "info",
      }),
      logger: createLogger("info", sink),
    });
  });
  afterAll(async () => {
    await flagging?.close();
    await receiver?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  /** An account with an owner and one key; its endpoint subscribed to key.leaked at `/<name>`. */
  async function account(name: string) {
    const prisma = databaseOf(app.rt).prisma;
    const email = `owner@${name.toLowerCase()}.example`;
    const created = await app.rt.accounts.create({ name, plan: "pro", ownerEmail: email }, "test");
    await prisma.user.create({
      data: { email, name: "Owner", role: "owner", passwordHash: "-", accountId: created.id },
    });
    const key = await app.rt.apiKeys.createInAccount(created.id, { name: `${name} till` }, "test");
    const endpoint = await app.rt
      .forAccount(created.id)
      .webhooks.create(
        { url: `${receiver.origin}/${name}`, eventTypes: ["key.leaked"], description: "" },
        "test",
      );
    secrets[name] = endpoint.secret;
    return { id: created.id, email, key };
  }

  const post = (report: { body: string; headers: Record<string, string> }) =>
    fetch(`${app.baseUrl}${HOOK}`, { method: "POST", body: report.body, headers: report.headers });
  const listPets = (key: string) =>
    fetch(`${app.baseUrl}/v1/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
  const leakAudits = () =>
    databaseOf(app.rt).prisma.auditLog.findMany({ where: { action: "apiKey.leak" }, orderBy: { id: "asc" } });

  it("revokes a reported live key before answering, labels every token, audits, sends key.leaked and mails the owners", async () => {
    const store = await app.rt.webhooks.create(
      { url: `${receiver.origin}/store`, eventTypes: ["key.leaked"], description: "" },
      "test",
    );
    const shop = await account("Leaky");
    const other = await account("Bystander");
    const old = await app.rt.apiKeys.createInAccount(shop.id, { name: "old till" }, "test");
    await app.rt.apiKeys.revoke(old.id, "test");
    // Known to this instance's cache: the revocation must reach it at once, not after the cache's 4 s.
    expect((await listPets(shop.key.key)).status).toBe(200);
    const unknown = generateApiKey("staging");
    const url = "https://github.com/someone/shop/blob/abc123/.env";

    const answer = await post(
      signed([
        { token: shop.key.key, type: "petstore_api_key", url, source: "content" },
        { token: unknown, type: "petstore_api_key", url, source: "content" },
        { token: "pet_test_not-a-key", type: "petstore_api_key" },
        { token: old.key, type: "petstore_api_key", url, source: "commit" },
      ]),
    );
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual([
      { token_raw: shop.key.key, token_type: "petstore_api_key", label: "true_positive" },
      { token_raw: unknown, token_type: "petstore_api_key", label: "false_positive" },
      { token_raw: "pet_test_not-a-key", token_type: "petstore_api_key", label: "false_positive" },
      { token_raw: old.key, token_type: "petstore_api_key", label: "false_positive" },
    ]);
    expect((await listPets(shop.key.key)).status).toBe(401);
    expect((await listPets(other.key.key)).status).toBe(200);

    const view = await app.rt.apiKeys.get(shop.key.id);
    expect(view).toMatchObject({ state: "revoked", leakSource: "github", leakUrl: url });
    expect(view.leakedAt).toBe(view.revokedAt);

    const [audit, ...more] = await leakAudits();
    expect(more).toEqual([]);
    expect(audit).toMatchObject({
      actor: "github:secret-scanning",
      entityType: "apiKey",
      entityId: shop.key.id,
    });
    expect(audit?.after).toMatchObject({ leakSource: "github", leakUrl: url, prefix: shop.key.prefix });

    const data = {
      id: shop.key.id,
      prefix: shop.key.prefix,
      name: "Leaky till",
      accountId: shop.id,
      leakedAt: view.leakedAt,
      source: "github",
      url,
      revoked: true,
    };
    const [own] = await receiver.waitFor((r) => r.path === "/Leaky");
    const [stores] = await receiver.waitFor((r) => r.path === "/store");
    for (const [got, secret] of [
      [own, secrets.Leaky],
      [stores, store.secret],
    ] as const) {
      const event = new Webhook(secret as string).verify(got?.body ?? "", got?.headers ?? {});
      expect(event).toMatchObject({ type: "key.leaked", data });
    }
    expect(receiver.received.filter((r) => r.path === "/Bystander")).toEqual([]);

    await app.rt.leakedKeys.settled();
    const mails = logged.filter((l) => l.msg === "leaked key mail (no SMTP_URL: logged instead)");
    expect(mails.map((m) => m.to)).toEqual([shop.email]);
    expect(mails[0]?.subject).toBe(`API key ${shop.key.prefix}… ("Leaky till") of Leaky leaked`);
    expect(mails[0]?.text).toContain(url);

    // Neither the logs nor any table hold a reported token.
    const everything = JSON.stringify(logged);
    const prisma = databaseOf(app.rt).prisma;
    const stored = JSON.stringify([
      await prisma.auditLog.findMany({ select: { before: true, after: true, entityId: true } }),
      await prisma.webhookEvent.findMany({ select: { data: true } }),
      await prisma.apiKey.findMany({ select: { prefix: true, leakUrl: true, leakSource: true } }),
    ]);
    for (const token of [shop.key.key, unknown, old.key]) {
      expect(everything).not.toContain(token);
      expect(stored).not.toContain(token);
    }
  });

  it("refuses a report without a valid signature with 401, and changes nothing", async () => {
    const shop = await account("Careful");
    const audits = (await leakAudits()).length;
    const report = [{ token: shop.key.key, type: "petstore_api_key" }];
    const genuine = signed(report);
    const attempts = [
      signed(report, stranger.privateKey),
      signed(report, github.privateKey, "gh-unknown"),
      { ...genuine, body: genuine.body.replace("petstore_api_key", "petstore_api_kez") },
      { body: genuine.body, headers: { "Content-Type": "application/json" } },
    ];
    for (const attempt of attempts) {
      const answer = await post(attempt);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ code: "unauthorized", status: 401 });
    }
    expect((await listPets(shop.key.key)).status).toBe(200);
    expect((await app.rt.apiKeys.get(shop.key.id)).leakedAt).toBeNull();
    expect(await leakAudits()).toHaveLength(audits);
    // Not under /v1's keys: a key in the request does not stand in for the signature.
    const withKey = await fetch(`${app.baseUrl}${HOOK}`, {
      method: "POST",
      body: genuine.body,
      headers: { Authorization: `Bearer ${shop.key.key}` },
    });
    expect(withKey.status).toBe(401);
  });

  it("with LEAKED_KEYS_ACTION=flag marks the key and leaves it working; the admins hear of a key outside accounts", async () => {
    const key = await app.rt.apiKeys.create({ name: "back office", plan: "pro" }, "test");
    const report = signed([{ token: key.key, type: "petstore_api_key" }]);
    const labels = await flagging.leakedKeys.report(Buffer.from(report.body), {
      keyIdentifier: "gh-current",
      signature: report.headers["Github-Public-Key-Signature"],
    });
    expect(labels).toEqual([{ token_raw: key.key, token_type: "petstore_api_key", label: "true_positive" }]);
    expect((await listPets(key.key)).status).toBe(200);
    expect(await app.rt.apiKeys.get(key.id)).toMatchObject({ state: "active", leakSource: "github" });
    // Reported again: still a live key of ours, recorded and announced once.
    const again = await flagging.leakedKeys.report(Buffer.from(report.body), {
      keyIdentifier: "gh-current",
      signature: report.headers["Github-Public-Key-Signature"],
    });
    expect(again[0]?.label).toBe("true_positive");
    expect((await leakAudits()).filter((a) => a.entityId === key.id)).toHaveLength(1);
    await flagging.leakedKeys.settled();
    const mails = logged.filter(
      (l) =>
        l.msg === "leaked key mail (no SMTP_URL: logged instead)" && String(l.subject).includes(key.prefix),
    );
    expect(mails.map((m) => m.to)).toEqual([ADMIN]);
    expect(mails[0]?.text).toContain("It still works");
  });

  it("marks a key as leaked from the dashboard the same way, and refuses a key that is revoked already", async () => {
    const shop = await account("Marked");
    await app.rt.leakedKeys.mark(shop.key.id, `user:${ADMIN}`);
    expect(await app.rt.apiKeys.get(shop.key.id)).toMatchObject({
      state: "revoked",
      leakSource: "dashboard",
      leakUrl: null,
    });
    expect((await leakAudits()).find((a) => a.entityId === shop.key.id)?.actor).toBe(`user:${ADMIN}`);
    const [got] = await receiver.waitFor((r) => r.path === "/Marked");
    expect(new Webhook(secrets.Marked as string).verify(got?.body ?? "", got?.headers ?? {})).toMatchObject({
      type: "key.leaked",
      data: { id: shop.key.id, source: "dashboard", url: null, revoked: true },
    });
    await expect(app.rt.leakedKeys.mark(shop.key.id, `user:${ADMIN}`)).rejects.toMatchObject({
      code: "validation_failed",
    });
  });

  it("refuses to start with a keys file that is not GitHub's list of P-256 keys", () => {
    const bad = path.join(folder, "bad.json");
    fs.writeFileSync(bad, JSON.stringify({ public_keys: [{ key_identifier: "x", key: "not a key" }] }));
    expect(() => loadConfig({ SECRET_SCANNING_KEYS_FILE: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ SECRET_SCANNING_KEYS_FILE: path.join(folder, "missing.json") })).toThrow(
      /SECRET_SCANNING_KEYS_FILE/,
    );
  });
});
