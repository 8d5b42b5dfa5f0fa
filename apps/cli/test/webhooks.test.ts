/**
 * `petstore webhooks …` as an operator runs it (docs/contract.md section 6), called in this process (`main`)
 * against a migrated PostgreSQL database and a loopback receiver: create prints `{id, url, events, secret}`
 * once, list shows state and why an endpoint is disabled (as JSON, or a table), test delivers a signed message (exit code 1 when it is not delivered), rotate signs with both
 * secrets, replay re-sends with the same webhook-id, every change is audited, and bad input exits with 2 and a
 * plain message. Without WEBHOOKS_ALLOW_PRIVATE_TARGETS a loopback or http URL is refused.
 */
import {
  createMigratedDatabase,
  startWebhookReceiver,
  type TemporaryDatabase,
  type WebhookReceiver,
} from "@petstore/core/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { petstore } from "./support.ts";

describe("petstore webhooks on PostgreSQL", () => {
  let db: TemporaryDatabase;
  let env: Record<string, string>;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_cli_webhooks");
    receiver = await startWebhookReceiver();
    env = { DATABASE_URL: db.url, WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true" };
  });
  afterAll(async () => {
    await receiver?.close();
    await db?.drop();
  });

  it("creates, lists, tests, rotates, disables, enables and replays", async () => {
    const created = await petstore(
      [
        "webhooks",
        "create",
        "--url",
        `${receiver.origin}/cli`,
        "--events",
        "pet.updated,pet.created",
        "--description",
        "CRM",
        "--json",
      ],
      env,
    );
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const endpoint = JSON.parse(created.stdout.trim());
    expect(Object.keys(endpoint).sort()).toEqual(["events", "id", "secret", "url"]);
    expect(endpoint).toMatchObject({ url: `${receiver.origin}/cli`, events: ["pet.created", "pet.updated"] });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // 32 random bytes behind the prefix.
    expect(Buffer.from(endpoint.secret.slice(6), "base64")).toHaveLength(32);

    const tested = await petstore(["webhooks", "test", endpoint.id], env);
    expect(tested.code, tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^Delivered test message msg_[0-9a-f]{32}: 204 in \d+ ms\./);
    const [message] = receiver.received;
    const body = new Webhook(endpoint.secret).verify(message?.body ?? "", message?.headers ?? {});
    expect(body).toMatchObject({ type: "webhook.test", data: { endpointId: endpoint.id } });

    receiver.respond(() => ({ status: 500, body: "down" }));
    const failing = await petstore(["webhooks", "test", endpoint.id, "--json"], env);
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout)).toMatchObject({ outcome: "retrying", status: 500 });
    receiver.respond(() => ({ status: 204 }));

    const rotated = await petstore(["webhooks", "rotate", endpoint.id, "--json"], env);
    expect(rotated.code).toBe(0);
    const { secret } = JSON.parse(rotated.stdout);
    expect(secret).not.toBe(endpoint.secret);
    expect((await petstore(["webhooks", "test", endpoint.id, "--type", "category.updated"], env)).code).toBe(
      0,
    );
    const signed = receiver.received.at(-1);
    expect(JSON.parse(signed?.body ?? "")).toMatchObject({
      type: "category.updated",
      data: { id: 0, name: "Example category", previous: { name: "Former example category" } },
    });
    const unknownType = await petstore(["webhooks", "test", endpoint.id, "--type", "pet.sold"], env);
    expect(unknownType.code).toBe(2);
    expect(unknownType.stderr).toMatch(/--type.*must be one of webhook\.test, pet\.created/);
    expect(signed?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    for (const s of [secret, endpoint.secret])
      new Webhook(s).verify(signed?.body ?? "", signed?.headers ?? {});

    expect((await petstore(["webhooks", "disable", endpoint.id], env)).code).toBe(0);
    const listed = await petstore(["webhooks", "list", "--json"], env);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        id: endpoint.id,
        url: endpoint.url,
        events: ["pet.created", "pet.updated"],
        enabled: false,
        disabledReason: expect.stringMatching(/^Disabled by cli:/),
      }),
    ]);
    const table = (await petstore(["webhooks", "list"], env)).stdout;
    expect(table).toMatch(new RegExp(`'${endpoint.id}'.*'disabled'.*'Disabled by cli:`));
    const replayDisabled = await petstore(
      ["webhooks", "replay", "--endpoint", endpoint.id, "--since", "1h"],
      env,
    );
    expect(replayDisabled.code).toBe(1);
    expect(replayDisabled.stderr).toMatch(/is disabled; enable it before replaying/);
    expect((await petstore(["webhooks", "enable", endpoint.id], env)).code).toBe(0);

    // The first test message is replayed with its own webhook-id (the server would send it; here it is queued).
    const messageId = message?.headers["webhook-id"] as string;
    const replayed = await petstore(["webhooks", "replay", messageId, "--json"], env);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout)).toEqual({ queued: 1 });
  });

  it.each([
    [["webhooks", "create", "--url", "https://example.com/h", "--events", "pet.eaten"], "--events"],
    [["webhooks", "enable", "nope"], "<id>"],
    [
      ["webhooks", "replay", "--endpoint", "0b6f1c1e-5d7e-4c47-9d7a-3f1d2a1b0c9e", "--since", "yesterday"],
      "--since",
    ],
  ])("refuses %j with exit code 2, naming %s", async (args, option) => {
    const result = await petstore([...args, "--json"], env);
    expect(result.code).toBe(2);
    const error = JSON.parse(result.stdout);
    expect(error).toMatchObject({ code: "validation_failed", status: 400, details: [{ path: option }] });
  });

  it("refuses a loopback or plain-http target unless private targets are allowed", async () => {
    const strict = { DATABASE_URL: db.url };
    for (const url of [`${receiver.origin}/x`, "https://localhost/x"]) {
      const result = await petstore(
        ["webhooks", "create", "--url", url, "--events", "pet.created", "--json"],
        strict,
      );
      expect(result.code, url).toBe(1);
      expect(JSON.parse(result.stdout), url).toMatchObject({
        code: "validation_failed",
        details: [{ path: "url" }],
      });
    }
  });
});
