/**
 * Quotas, alerts and billing in the browser (docs/contract.md sections 3 and 7): an admin gives an account a
 * monthly quota on its page, beside its limits, and sees the month's progress; its owner sets usage alert
 * thresholds and a usage.threshold webhook endpoint in the portal; the account's requests cross them, the receiver
 * gets each alert once, signed, and the request beyond the quota is 429 quota_exceeded with Retry-After; the
 * portal shows the month's progress and the billing CSV downloads.
 */
import { startWebhookReceiver, type WebhookReceiver } from "@petstore/core/testing";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { e2e } from "./support/accounts";
import { expectAccessible, openSignedIn, restGet, unique } from "./support/helpers";
import { acceptInvitation, createAccount, createKey } from "./support/portal";

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

test("a monthly quota set by an admin, usage alerts set by the owner, crossed by the account's requests", async ({
  page,
  browser,
  request,
}) => {
  test.slow();
  const name = unique("Quota Pets");
  const account = await createAccount(browser, name, `quota-${Date.now().toString(36)}@example.com`);

  // The admin: a quota of 10 requests a month beside the account's limits, and the month's progress.
  const admin = await browser.newPage({ baseURL: e2e.baseUrl });
  await openSignedIn(admin, e2e.admin);
  await admin.goto(`/admin/accounts/${account.id}`);
  await expect(admin.getByText(/^No monthly quota/)).toBeVisible();
  await expectAccessible(admin, "the account page with its quota and alerts");
  await admin.getByLabel(/^Requests per month/).fill("10");
  await admin.getByRole("button", { name: "Save limits" }).click();
  await expect(admin.getByText("This month (UTC): 0 of 10 requests")).toBeVisible();

  // The owner: thresholds at 50% and 80%, and an endpoint for usage.threshold.
  await acceptInvitation(page, account.invitationUrl, "Quinn Owner");
  await page.getByLabel(/^Thresholds/).fill("50, 80");
  await page.getByRole("button", { name: "Save thresholds" }).click();
  await expect(page.getByText("Usage alerts at 50%, 80%.")).toBeVisible();
  const endpoint = await page.request.post("/api/trpc/portal.webhooks.create", {
    data: { url: `${receiver.origin}/quota`, eventTypes: ["usage.threshold"], description: "alerts" },
  });
  expect(endpoint.status(), await endpoint.text()).toBe(200);
  const { secret } = (await endpoint.json()).result.data as { secret: string };
  const key = await createKey(page, "Till");

  for (let i = 0; i < 10; i++) expect((await restGet(request, "/v1/pets?limit=1", key)).status()).toBe(200);
  const refused = await restGet(request, "/v1/pets?limit=1", key);
  expect(refused.status()).toBe(429);
  expect((await refused.json()).code).toBe("quota_exceeded");
  expect(Number(refused.headers()["retry-after"])).toBeGreaterThanOrEqual(1);

  const got = await receiver.waitFor((r) => r.path === "/quota", 2, 5_000);
  const events = got.map(
    (r) =>
      new Webhook(secret).verify(r.body, r.headers) as {
        type: string;
        data: { window: string; threshold: number; count: number };
      },
  );
  expect(events.map((e) => [e.type, e.data.window, e.data.threshold, e.data.count]).sort()).toEqual([
    ["usage.threshold", "month", 50, 5],
    ["usage.threshold", "month", 80, 8],
  ]);

  await page.reload();
  await expect(page.getByText("This month (UTC): 10 of 10 requests")).toBeVisible();
  await page.getByRole("navigation", { name: "Portal pages" }).getByRole("link", { name: "Usage" }).click();
  await expect(page.getByRole("button", { name: "Download billing CSV" })).toBeVisible();
  await admin.close();
});
