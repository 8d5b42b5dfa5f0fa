/**
 * An admin registers a webhook endpoint in the dashboard (by keyboard), copies its secret once, sends a test
 * message, and sees an animal created through the REST API arrive signed at a loopback receiver; a failed
 * attempt shows in the delivery log (filtered by outcome) and is retried; the message's page shows its attempts
 * and replays it with the same webhook-id; disabling and deleting ask first. Every page passes the axe scan.
 */

import { WEBHOOK_EVENT_TYPES } from "@petstore/contracts";
import { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from "@petstore/core/testing";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { e2e, readState } from "./support/accounts";
import { expectAccessible, expectNoHorizontalOverflow, openSignedIn, snap } from "./support/helpers";

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

test("register an endpoint, receive signed events, follow the log, retry, replay, disable, delete", async ({
  page,
  request,
}, testInfo) => {
  test.slow();
  const url = `${receiver.origin}/e2e-${Date.now().toString(36)}`;
  const at = (r: ReceivedWebhook) => url.endsWith(r.path);
  await openSignedIn(page, e2e.admin);
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "Webhooks" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();

  await page.getByRole("button", { name: "Add endpoint" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
  // A new endpoint starts with no event ticked; validated like the server: a URL and at least one event are needed.
  const events = dialog.getByRole("checkbox");
  // Every event of the catalogue (docs/contract.md section 6), none ticked.
  await expect(events).toHaveCount(WEBHOOK_EVENT_TYPES.length);
  for (const box of await events.all()) await expect(box).not.toBeChecked();
  await expect(dialog.getByRole("button", { name: "None" })).toBeDisabled();
  await dialog.getByRole("button", { name: "Add endpoint" }).click();
  await expect(dialog.getByText("This cannot be empty.")).toBeVisible();
  await expect(dialog.getByText("Choose at least one.")).toBeVisible();
  await page.mouse.move(0, 0);
  await expectAccessible(page, "add endpoint dialog with its errors");
  // The rest by keyboard, from the URL field: Tab reaches the description, "Every event" (the only list button
  // enabled once none is ticked), then the first event's checkbox; Enter in a text field submits.
  await dialog.getByRole("textbox", { name: /^URL/ }).focus();
  await page.keyboard.type(url);
  await page.keyboard.press("Tab");
  await page.keyboard.type("e2e receiver");
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Every event" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("checkbox", { name: /pet\.created/ })).toBeFocused();
  await page.keyboard.press("Space");
  await expect(dialog.getByRole("checkbox", { checked: true })).toHaveCount(1);
  await dialog.getByRole("textbox", { name: /^Description/ }).press("Enter");

  const secretDialog = page.getByRole("dialog", { name: "Endpoint registered" });
  await expect(secretDialog.getByText("This is the only time the secret is shown")).toBeVisible();
  const secret = await secretDialog.getByRole("textbox", { name: "Signing secret" }).inputValue();
  expect(secret).toMatch(/^whsec_/);
  await snap(page, testInfo, "webhook-secret-once");
  await secretDialog.getByRole("button", { name: "I have stored the secret" }).click();
  await expect(page.locator("body")).not.toContainText(secret);

  const row = page.getByRole("row").filter({ hasText: url });
  await expect(row).toContainText("enabled");
  await expect(row).toContainText("pet.created");
  await expect(row).not.toContainText("pet.updated");
  await row.getByRole("button", { name: `Actions for ${url}` }).click();
  await page.getByRole("menuitem", { name: "Send test message…" }).click();
  // An example of a type the receiver handles: the type's shape, about an animal that does not exist, signed.
  const testDialog = page.getByRole("dialog", { name: `Send a test message to ${url}` });
  await testDialog.getByRole("combobox", { name: "Message" }).click();
  await page.getByRole("option", { name: "An example pet.deleted event" }).click();
  await testDialog.getByRole("button", { name: "Send" }).click();
  await expect(page.getByText(/Test message delivered: 204 in \d+ ms\./)).toBeVisible();
  const [example] = await receiver.waitFor((r) => at(r) && r.body.includes('"pet.deleted"'));
  expect(new Webhook(secret).verify(example?.body ?? "", example?.headers ?? {})).toMatchObject({
    type: "pet.deleted",
    data: { id: 0, name: "Example animal", categoryId: 0, status: "available" },
  });
  await expectAccessible(page, "webhooks list");
  await expectNoHorizontalOverflow(page);
  await snap(page, testInfo, "webhooks-list");

  // An animal added through the public API arrives signed.
  const created = await request.post("/v1/pets", {
    headers: { Authorization: `Bearer ${readState().checkerKey}` },
    data: { name: "Hooked", categoryId: Object.values(readState().categories)[0] },
  });
  expect(created.status()).toBe(201);
  const pet = await created.json();
  // Other files create animals meanwhile, and the endpoint takes every pet.created: this one is found by its id.
  const ofPet = (r: ReceivedWebhook) => {
    const message = at(r) ? JSON.parse(r.body) : undefined;
    return message?.type === "pet.created" && message.data?.id === pet.id;
  };
  const [first] = await receiver.waitFor(ofPet);
  expect(new Webhook(secret).verify(first?.body ?? "", first?.headers ?? {})).toMatchObject({
    type: "pet.created",
    data: pet,
  });

  // A failing receiver: the attempt is logged as failed, then retried with the same webhook-id.
  receiver.respond((r) =>
    at(r) && r.body.includes('"Unlucky"') ? { status: 500, body: "receiver down" } : { status: 204 },
  );
  await request.post("/v1/pets", {
    headers: { Authorization: `Bearer ${readState().checkerKey}` },
    data: { name: "Unlucky", categoryId: Object.values(readState().categories)[0] },
  });
  const [failing] = await receiver.waitFor((r) => at(r) && r.body.includes("Unlucky"));
  const messageId = failing?.headers["webhook-id"] as string;
  receiver.respond(() => ({ status: 204 }));

  await row.getByRole("link", { name: url }).click();
  await expect(page.getByRole("heading", { level: 2, name: "Delivery log" })).toBeVisible();
  const log = page.getByRole("region", { name: "Delivery log table" });
  await expect(log.getByRole("row").filter({ hasText: messageId }).filter({ hasText: "500" })).toBeVisible();
  await expect(log.getByText("receiver down")).toBeVisible();
  await page.getByText("Failed", { exact: true }).click();
  await expect(page).toHaveURL(/outcome=failed/);
  await expect(log.getByRole("row")).toHaveCount(2); // header + the one failed attempt
  // The list polls while deliveries wait, so a click can land on a control that is being drawn again: click until
  // the address drops the filter.
  await expect(async () => {
    await page.getByText("All", { exact: true }).click();
    await expect(page).not.toHaveURL(/outcome=failed/, { timeout: 1_000 });
  }).toPass({ timeout: 5_000 });
  await receiver.waitFor((r) => r.headers["webhook-id"] === messageId, 2, 20_000);
  await page.reload();
  await expect(log.getByRole("row").filter({ hasText: messageId })).toHaveCount(2, { timeout: 20_000 });
  await expectAccessible(page, "endpoint delivery log");
  await expectNoHorizontalOverflow(page);
  await snap(page, testInfo, "webhook-delivery-log");

  // The message's page: its body and attempts; a replay sends it again with the same webhook-id.
  await log.getByRole("link", { name: messageId }).first().click();
  await expect(page.getByText(messageId).first()).toBeVisible();
  const delivery = page.getByRole("region", { name: `Delivery to ${url}` });
  await expect(delivery).toContainText("succeeded");
  await expect(delivery).toContainText("#1");
  await expect(delivery).toContainText("#2");
  await expectAccessible(page, "webhook message");
  await snap(page, testInfo, "webhook-message");
  await delivery.getByRole("button", { name: `Replay to ${url}` }).click();
  await expect(page.getByText(`The message will be sent again to ${url}.`)).toBeVisible();
  const again = await receiver.waitFor((r) => r.headers["webhook-id"] === messageId, 3, 20_000);
  expect(again.at(-1)?.body).toBe(failing?.body);
  // Without a reload the page shows the new attempt: it asks every second while an attempt is on its way.
  await expect(delivery).toContainText("#3", { timeout: 5_000 });
  await expect(delivery).toContainText("succeeded");
  await expectAccessible(page, "webhook message after a replay");

  // Disabling and deleting ask first.
  await page.goto("/admin/webhooks");
  await row.getByRole("button", { name: `Actions for ${url}` }).click();
  await page.getByRole("menuitem", { name: "Disable…" }).click();
  await page
    .getByRole("dialog", { name: `Disable ${url}?` })
    .getByRole("button", { name: "Disable endpoint" })
    .click();
  await expect(row).toContainText("disabled");
  await expect(row).toContainText(`Disabled by user:${e2e.admin.email}`);
  await row.getByRole("button", { name: `Actions for ${url}` }).click();
  await page.getByRole("menuitem", { name: "Delete…" }).click();
  const confirm = page.getByRole("dialog", { name: `Delete ${url}?` });
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(row).toBeVisible();
  await row.getByRole("button", { name: `Actions for ${url}` }).click();
  await page.getByRole("menuitem", { name: "Delete…" }).click();
  await confirm.getByRole("button", { name: "Delete endpoint" }).click();
  await expect(page.getByText(`${url} was deleted.`)).toBeVisible();
  await expect(row).toHaveCount(0);
});
