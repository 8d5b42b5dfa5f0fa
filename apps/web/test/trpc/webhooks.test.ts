/**
 * The dashboard's webhook procedures (admins; docs/contract.md section 6): an endpoint is registered with its
 * secret returned once and never again, edited, tested (the attempt is reported and logged), disabled and
 * enabled, rotated; its delivery log filters by outcome; a message shows its body and attempts and can be
 * replayed; every change is in the audit log under the endpoint's URL. A target that is not https or not public
 * is refused beside the URL field, in plain words.
 */
import { databaseOf, startWebhookReceiver, type WebhookReceiver } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, categoryId, expectTrpcError, type Harness, openHarness, shapeOf } from "./support";

describe("webhooks procedures", () => {
  let h: Harness;
  let admin: Caller;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    [h, receiver] = await Promise.all([
      openHarness({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true", WEBHOOKS_RETRY_SCHEDULE: "1h" }),
      startWebhookReceiver(),
    ]);
    admin = (await h.signedIn("admin@example.com")).caller;
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  it("registers, edits, tests, disables, enables, rotates and deletes an endpoint, all audited", async () => {
    const created = await admin.webhooks.create({
      url: `${receiver.origin}/dashboard`,
      eventTypes: ["pet.updated", "pet.created", "pet.created"],
      description: "Shop sync",
    });
    expect(created.eventTypes).toEqual(["pet.created", "pet.updated"]);
    expect(created.secret).toMatch(/^whsec_/);
    const listed = await admin.webhooks.list();
    expect(listed).toEqual([
      expect.objectContaining({ id: created.id, enabled: true, description: "Shop sync", pending: 0 }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    const edited = await admin.webhooks.update({ id: created.id, eventTypes: ["category.created"] });
    expect(edited.eventTypes).toEqual(["category.created"]);

    const test = await admin.webhooks.sendTest({ id: created.id });
    expect(test).toMatchObject({ outcome: "succeeded", status: 204 });
    receiver.respond(() => ({ status: 502, body: "bad gateway" }));
    const failed = await admin.webhooks.sendTest({ id: created.id });
    expect(failed).toMatchObject({ outcome: "retrying", status: 502 });
    receiver.respond(() => ({ status: 204 }));

    const log = await admin.webhooks.deliveryLog({ endpointId: created.id, outcome: "failed" });
    expect(log.rows).toEqual([
      expect.objectContaining({
        messageId: failed.messageId,
        eventType: "webhook.test",
        status: 502,
        responseExcerpt: "bad gateway",
        requestHeaders: expect.objectContaining({
          "content-type": "application/json",
          "webhook-id": failed.messageId,
        }),
      }),
    ]);
    const message = await admin.webhooks.message({ id: failed.messageId });
    expect(JSON.parse(message.body)).toMatchObject({
      type: "webhook.test",
      data: { endpointId: created.id },
    });
    expect(message.deliveries).toEqual([expect.objectContaining({ state: "pending", attempts: 1 })]);
    expect(
      await admin.webhooks.replayMessage({ messageId: failed.messageId, endpointId: created.id }),
    ).toEqual({
      queued: 1,
    });

    const disabled = await admin.webhooks.disable({ id: created.id });
    expect(disabled).toMatchObject({
      enabled: false,
      disabledReason: "Disabled by user:admin@example.com",
      pending: 0,
    });
    expect((await admin.webhooks.message({ id: failed.messageId })).deliveries[0]?.state).toBe("failed");
    await expectTrpcError(
      admin.webhooks.replayMessage({ messageId: failed.messageId, endpointId: created.id }),
      "CONFLICT",
    );
    expect(await admin.webhooks.enable({ id: created.id })).toMatchObject({
      enabled: true,
      disabledReason: null,
    });

    const rotated = await admin.webhooks.rotate({ id: created.id });
    expect(rotated.secret).not.toBe(created.secret);
    expect((await admin.webhooks.get({ id: created.id })).previousSecretExpiresAt).not.toBeNull();

    await admin.webhooks.remove({ id: created.id });
    await expectTrpcError(admin.webhooks.get({ id: created.id }), "NOT_FOUND");
    const audit = await admin.audit.list({ entityType: "webhookEndpoint", entityId: created.id });
    expect(audit.rows.map((e) => e.action).reverse()).toEqual([
      "webhookEndpoint.create",
      "webhookEndpoint.update",
      "webhookEndpoint.test",
      "webhookEndpoint.test",
      "webhookEndpoint.replay",
      "webhookEndpoint.disable",
      "webhookEndpoint.enable",
      "webhookEndpoint.rotate",
      "webhookEndpoint.delete",
    ]);
    expect(audit.rows[0]?.entityName).toBe(`${receiver.origin}/dashboard`);
    expect(JSON.stringify(audit.rows)).not.toContain(created.secret);
    expect(JSON.stringify(audit.rows)).not.toContain(rotated.secret);
  });

  it("replays a message only to an endpoint subscribed to its type, and queues nothing otherwise", async () => {
    const pets = await admin.webhooks.create({ url: `${receiver.origin}/pets`, eventTypes: ["pet.created"] });
    const others = await admin.webhooks.create({
      url: `${receiver.origin}/others`,
      eventTypes: ["category.created"],
    });
    await admin.pets.create({ name: "Replayed", categoryId: await categoryId(h.rt, "dogs") });
    const { prisma } = databaseOf(h.rt);
    const event = await prisma.webhookEvent.findFirstOrThrow({ where: { type: "pet.created" } });
    const before = await prisma.webhookDelivery.count();
    const error = await expectTrpcError(
      admin.webhooks.replayMessage({ messageId: event.id, endpointId: others.id }),
      "BAD_REQUEST",
    );
    expect(error.message).toBe(
      `The webhook endpoint ${receiver.origin}/others is not subscribed to pet.created messages; add the type to its event types to replay this message to it.`,
    );
    expect(shapeOf(error).data.details).toEqual([
      { path: "endpointId", message: "is not subscribed to pet.created" },
    ]);
    expect(await prisma.webhookDelivery.count()).toBe(before);
    expect(await admin.webhooks.replayMessage({ messageId: event.id, endpointId: pets.id })).toEqual({
      queued: 1,
    });
    await admin.webhooks.remove({ id: pets.id });
    await admin.webhooks.remove({ id: others.id });
  });

  it("refuses a URL that is not https or not public, beside the field", async () => {
    const strict = await openHarness();
    try {
      const caller = (await strict.signedIn("admin@example.com")).caller;
      for (const [url, message] of [
        ["http://example.com/hook", "must start with https://"],
        ["https://10.0.0.7/hook", "this host is not allowed: webhooks call public addresses only"],
        ["https://localhost/hook", "this host is not allowed: webhooks call public addresses only"],
        ["https://no-such-host.invalid/hook", "this host could not be reached"],
        ["ftp://example.com/x", "must start with https://"],
        ["https://user:pw@example.com/x", "must not contain a user name or password"],
      ]) {
        const error = await expectTrpcError(
          caller.webhooks.create({ url: url as string, eventTypes: ["pet.created"] }),
          "BAD_REQUEST",
        );
        expect(shapeOf(error).data.details, url).toEqual([{ path: "url", message }]);
      }
      const none = await expectTrpcError(
        caller.webhooks.create({ url: "https://8.8.8.8/x", eventTypes: [] }),
        "BAD_REQUEST",
      );
      expect(shapeOf(none).data.details).toEqual([
        { path: "eventTypes", message: "choose at least one event type" },
      ]);
      expect(await caller.webhooks.list()).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});
