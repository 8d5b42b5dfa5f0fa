/**
 * A new account's owner in the developer portal (docs/contract.md section 7) from invitation to webhooks: accepts
 * the invitation, creates a key, calls the REST API with an `X-Request-Id` of its own and finds that request in the
 * request log by it, reads the usage and downloads its daily figures, adds a webhook endpoint (a loopback receiver),
 * sends it an example event and sees the attempt in the endpoint's delivery log (its details with the headers the
 * receiver got) and on the message's page; a key's flood of refusals shows in the log as an aggregate row. Every
 * portal page on the way passes axe.
 */
import fs from "node:fs";
import { startWebhookReceiver, type WebhookReceiver } from "@petstore/core/testing";
import { expect, type Page, test } from "@playwright/test";
import { expectAccessible, expectNoHorizontalOverflow, snap, unique, VIEWPORTS } from "./support/helpers";
import { acceptInvitation, createAccount, createKey } from "./support/portal";

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

/** Opens the portal page `name` from the portal's navigation. */
async function openFromNav(page: Page, name: string) {
  await page.getByRole("navigation", { name: "Portal pages" }).getByRole("link", { name }).click();
}

test("invite, sign up, create a key, find its request by X-Request-Id, add a webhook and see a test delivery", async ({
  page,
  browser,
  request,
}, testInfo) => {
  test.slow();
  const accountName = unique("Flow Pets");
  const { invitationUrl } = await createAccount(
    browser,
    accountName,
    `flow-${Date.now().toString(36)}@example.com`,
  );
  await acceptInvitation(page, invitationUrl, "Flo Owner");
  const keyName = unique("Checkout");
  const secret = await createKey(page, keyName);

  const requestId = `e2e-portal-${Date.now().toString(36)}`;
  const call = await request.get("/v1/pets?limit=2", {
    headers: { Authorization: `Bearer ${secret}`, "X-Request-Id": requestId },
  });
  expect(call.status()).toBe(200);
  expect(call.headers()["x-request-id"]).toBe(requestId);

  // The request log: found by its X-Request-Id, which the URL keeps; the e2e server writes the log every second.
  await openFromNav(page, "Request log");
  await expect(page.getByRole("heading", { level: 1, name: "Request log" })).toBeVisible();
  await page.getByRole("textbox", { name: "Find by X-Request-Id" }).fill(requestId);
  await page.getByRole("button", { name: "Find", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`requestId=${requestId}`));
  const log = page.getByRole("region", { name: "Request log table" });
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(log.getByRole("row").filter({ hasText: requestId })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  const entry = log.getByRole("row").filter({ hasText: requestId });
  await expect(entry).toContainText("GET /v1/pets?limit=2");
  await expect(entry).toContainText("listPets");
  await expect(entry).toContainText("200");
  await expect(entry).toContainText(secret.slice(0, 12));
  await expect(entry).toContainText("left this minute");
  await expectAccessible(page, "the portal's request log");
  await snap(page, testInfo, "portal-requests");
  // The filters survive a reload.
  await page.reload();
  await expect(page.getByRole("textbox", { name: "Find by X-Request-Id" })).toHaveValue(requestId);
  await expect(log.getByRole("row").filter({ hasText: requestId })).toBeVisible();
  // While a new search runs, the old rows are shown busy (aria-busy, dimmed, a spinner), not as its answer.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/api\/trpc\/[^?]*portal\.requestLog/, async (route) => {
    await held;
    await route.continue();
  });
  await page.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "5xx server error" }).click();
  await expect(log.getByRole("table")).toHaveAttribute("aria-busy", "true");
  await expect(page.locator(".list-busy")).toBeVisible();
  release();
  await expect(page.getByText("No request matches")).toBeVisible();
  await page.unroute(/\/api\/trpc\/[^?]*portal\.requestLog/);

  // Usage against the limits, and the daily figures as CSV.
  await openFromNav(page, "Usage");
  await expect(page.getByRole("heading", { level: 1, name: "Usage" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Limits", exact: true })).toContainText("Pro");
  await expect(page.getByRole("region", { name: "Requests per key table" })).toContainText(keyName);
  await page.getByText("90 days", { exact: true }).click();
  await expect(page).toHaveURL(/days=90/);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("usage-90-days.csv");
  const csv = fs.readFileSync((await download.path()) ?? "", "utf8").split("\r\n");
  expect(csv[0]).toMatch(/^"day \(UTC\)","requests","2xx success"/);
  expect(csv.filter((line) => /^"\d{4}-\d{2}-\d{2}"/.test(line))).toHaveLength(90);
  await expectAccessible(page, "the portal's usage page");
  // Headings go down one level at a time (axe `heading-order`, a moderate finding the scan above does not fail on).
  const levels = await page
    .locator("h1, h2, h3, h4, h5, h6")
    .evaluateAll((hs) => hs.map((h) => Number(h.tagName.slice(1))));
  expect(levels[0]).toBe(1);
  for (const [i, level] of levels.entries())
    if (i) expect(level).toBeLessThanOrEqual((levels[i - 1] ?? 1) + 1);
  await snap(page, testInfo, "portal-usage");

  // A webhook endpoint of the account: its secret once, then an example event delivered and logged.
  await openFromNav(page, "Webhooks");
  await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
  await expectAccessible(page, "the portal's webhooks page without endpoints");
  const url = `${receiver.origin}/portal-${Date.now().toString(36)}`;
  await page.getByRole("button", { name: "Add endpoint" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
  await dialog.getByRole("textbox", { name: /^URL/ }).fill(url);
  // One event type that other files hardly cause: the store-wide animal events they cause meanwhile would fill the
  // delivery log's first page before the test message's attempt.
  await dialog.getByRole("checkbox", { name: /^category\.deleted/ }).check();
  await dialog.getByRole("button", { name: "Add endpoint" }).click();
  const secretDialog = page.getByRole("dialog", { name: "Endpoint registered" });
  expect(await secretDialog.getByRole("textbox", { name: "Signing secret" }).inputValue()).toMatch(/^whsec_/);
  await secretDialog.getByRole("button", { name: "I have stored the secret" }).click();
  const row = page.getByRole("row").filter({ hasText: url });
  await expect(row).toContainText("enabled");
  await expectAccessible(page, "the portal's webhooks page");

  await row.getByRole("link", { name: url }).click();
  await expect(page.getByRole("heading", { level: 1, name: url })).toBeVisible();
  await page.getByRole("button", { name: `Actions for ${url}` }).click();
  await page.getByRole("menuitem", { name: "Send test message…" }).click();
  const testDialog = page.getByRole("dialog", { name: `Send a test message to ${url}` });
  await testDialog.getByRole("combobox", { name: "Message" }).click();
  await page.getByRole("option", { name: "An example pet.created event" }).click();
  await testDialog.getByRole("button", { name: "Send" }).click();
  await expect(page.getByText(/Test message delivered: 204 in \d+ ms\./)).toBeVisible();
  // A test message goes to the endpoint whatever it subscribes to; it is the example about animal 0, found in the
  // log by its message id.
  const [sent] = await receiver.waitFor(
    (r) => url.endsWith(r.path) && r.body.includes('"pet.created"') && r.body.includes('"id":0,'),
  );
  const attempts = page.getByRole("region", { name: "Delivery log table" });
  const attempt = attempts.getByRole("row").filter({ hasText: sent?.headers["webhook-id"] ?? "(missing)" });
  await expect(attempt).toContainText("pet.created");
  await expect(attempt).toContainText("204");
  await expect(attempt).toContainText(" ms");
  await expect(page.getByText(/100% of \d/)).toBeVisible();
  await expectAccessible(page, "the portal's endpoint page");
  await snap(page, testInfo, "portal-endpoint");

  // The attempt's details hold the headers as the receiver got them.
  await attempt.getByRole("button", { name: /^Details of attempt 1 of msg_/ }).click();
  const details = page.getByRole("dialog", { name: "Attempt #1" });
  const headers = details.getByRole("table", { name: "Headers sent" });
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature", "user-agent"])
    await expect(headers.getByRole("row").filter({ hasText: name })).toContainText(
      sent?.headers[name] ?? "(missing)",
    );
  // The test's toast fades out about now; axe would read its text mid-fade as low contrast.
  await expect(page.getByText(/Test message delivered/)).toBeHidden();
  await expectAccessible(page, "the details of a webhook attempt");
  await page.keyboard.press("Escape");
  await expect(details).toBeHidden();

  await attempt.getByRole("link", { name: /^msg_/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "pet.created" })).toBeVisible();
  const delivery = page.getByRole("region", { name: `Delivery to ${url}` });
  await expect(delivery).toContainText("succeeded");
  await expect(delivery.getByRole("button", { name: `Replay to ${url}` })).toBeVisible();
  // The test's toast fades out about now; axe would read its text mid-fade as low contrast.
  await expect(page.getByText(/Test message delivered/)).toBeHidden();
  await expectAccessible(page, "the portal's message page");
  await page.getByRole("link", { name: "← All webhook endpoints" }).click();
  await expect(page).toHaveURL(/\/portal\/webhooks$/);

  // On a phone the new pages fit the screen, their lists as cards, and stay accessible.
  await page.setViewportSize(VIEWPORTS[1]);
  for (const [name, heading] of [
    ["Request log", "Request log"],
    ["Usage", "Usage"],
    ["Orders", "Orders"],
    ["Webhooks", "Webhooks"],
  ] as const) {
    await page.getByRole("button", { name: "Toggle navigation" }).click();
    await openFromNav(page, name);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    // The header's name is whole, not cut with an ellipsis.
    const product = page.getByRole("banner").getByRole("link", { name: "Pet Store developer portal" });
    expect(await product.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    if (name === "Request log") {
      // The filters fold behind their toggle, so the log starts on the first screen.
      const find = page.getByRole("textbox", { name: "Find by X-Request-Id" });
      await expect(find).toBeHidden();
      const top = (await page.getByLabel("Request log table").boundingBox())?.y ?? Number.POSITIVE_INFINITY;
      expect(top).toBeLessThan(VIEWPORTS[1].height / 2);
      await page.getByRole("button", { name: /^Filters/ }).click();
      await expect(find).toBeVisible();
      await page.getByRole("button", { name: /^Hide filters/ }).click();
      await expect(find).toBeHidden();
    }
    await expectNoHorizontalOverflow(page);
    await expectAccessible(page, `the portal's ${name} page on a phone`);
    await snap(page, testInfo, `portal-${name.toLowerCase().replace(" ", "-")}-phone`);
  }
});

test("a key's flood of refusals shows as an aggregate row in the request log", async ({
  page,
  browser,
  request,
}) => {
  test.slow();
  const { invitationUrl } = await createAccount(
    browser,
    unique("Flood Pets"),
    `flood-${Date.now().toString(36)}@example.com`,
    "free",
  );
  await acceptInvitation(page, invitationUrl, "Flo Flooder");
  const secret = await createKey(page, unique("Flood"));
  // Past the free plan's 60 a minute, and past the log's 100 refusals one by one per flush interval (a second):
  // bursts of 60 at once.
  const statuses: number[] = [];
  for (let round = 0; round < 5; round++)
    statuses.push(
      ...(await Promise.all(
        Array.from({ length: 60 }, () =>
          request
            .get("/v1/categories", { headers: { Authorization: `Bearer ${secret}` } })
            .then((r) => r.status()),
        ),
      )),
    );
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(200);

  await openFromNav(page, "Request log");
  const log = page.getByRole("region", { name: "Request log table" });
  const aggregate = log.getByRole("row").filter({ hasText: /requests refused with 429 between/ });
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(aggregate.first()).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(aggregate.first()).toContainText("not logged one by one");
  await expectAccessible(page, "the portal's request log with an aggregate row");
});
