/**
 * Request analytics in the dashboard (docs/contract.md section 4, "Usage and analytics"): an admin issues a
 * key, the key makes a few API calls (successes, a 400, a 404 of the deprecated getPet), and the key's page
 * shows them at once in the traffic charts (last 24 h by hour, by operation and outcome, latency) and in the
 * recent requests table with their request ids, and in the chosen day by hour (a quick choice puts the day in
 * the URL, reload keeps it, Back returns to today); one click opens the audit log filtered to the key; the
 * overview's traffic counts them too. Axe-clean at both sizes.
 */
import { expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import {
  expectAccessible,
  expectNoHorizontalOverflow,
  openSignedIn,
  snap,
  unique,
  VIEWPORTS,
} from "./support/helpers";

test("a key's calls show in its traffic charts and recent requests", async ({ page, request }, testInfo) => {
  // Two axe scans and two screenshots of a long page: more than the default minute on a loaded machine.
  test.setTimeout(240_000);
  await openSignedIn(page, e2e.admin, "/admin/keys");
  const name = unique("Analytics shop");
  await page.getByRole("button", { name: "Issue key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Issue an API key" });
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole("combobox", { name: "Plan" }).click();
  await page.getByRole("option", { name: "Pro" }).click();
  await dialog.getByRole("button", { name: "Issue key" }).click();
  const secretDialog = page.getByRole("dialog", { name: "Your new API key" });
  const secret = await secretDialog.getByLabel("New API key").inputValue();
  await secretDialog.getByRole("button", { name: "I have stored the key" }).click();
  await expect(secretDialog).toBeHidden();
  // The success toast is on screen for a few seconds; it must pass the same checks as the page under it.
  await expect(page.getByRole("alert").filter({ hasText: "was issued" })).toBeVisible();
  await expectAccessible(page, "keys page with a toast");

  const headers = (id: string) => ({ Authorization: `Bearer ${secret}`, "X-Request-Id": id });
  for (let i = 0; i < 3; i++)
    expect((await request.get("/v1/pets?limit=2", { headers: headers(`e2e-list-${i}`) })).status()).toBe(200);
  expect((await request.post("/v1/pets", { headers: headers("e2e-create-bad"), data: {} })).status()).toBe(
    400,
  );
  expect((await request.get("/v1/pets/999999", { headers: headers("e2e-get-missing") })).status()).toBe(404);

  await page.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { name: "Last 30 days", exact: true })).toBeVisible();
  // The page's queries come back in one batch; on a loaded machine that can take a while.
  await expect(page.getByRole("heading", { name })).toBeVisible({ timeout: 60_000 });
  const hourly = page.getByRole("region", { name: "This key: requests, last 24 hours (UTC)" });
  await expect(hourly).toContainText(
    "5 requests reached the API and 0 were refused with 429 in the last 24 hours",
  );
  const operations = page.getByRole("region", { name: /This key: by operation and outcome/ });
  await expect(operations).toContainText("listPets: 3, createPet: 1, getPet (deprecated): 1");
  await expect(page.getByRole("region", { name: "This key: latency, last 24 hours" })).toContainText(
    /p50 [\d.]+ ms/,
  );

  const recent = page.getByRole("table", { name: /last 5 requests made with this key/ });
  await expect(recent.getByRole("row")).toHaveCount(6);
  const newest = recent.getByRole("row").nth(1);
  await expect(newest).toContainText("getPet");
  await expect(newest).toContainText("404");
  await expect(newest).toContainText("e2e-get-missing");
  await expect(recent.getByRole("row").filter({ hasText: "e2e-create-bad" })).toContainText("400");
  await expect(recent.getByRole("row").filter({ hasText: "e2e-create-bad" })).toContainText("127.0.0.1");
  await expect(page.getByText("Requests today")).toBeVisible();

  // The day by hour: today counts the calls; "Yesterday" is one click, kept in the URL through a reload.
  const keyUrl = page.url();
  const summary = page.getByTestId("day-summary");
  await expect(summary).toContainText("5 requests on");
  // The same figures as a table, for whoever cannot read the chart: its totals add up to the 5 calls.
  await page.getByRole("button", { name: "Show the hours as a table" }).click();
  const hourTotals = page
    .getByRole("region", { name: /^Requests by hour on / })
    .locator("tbody td:nth-child(2)");
  await expect
    .poll(async () =>
      (await hourTotals.allTextContents()).reduce((sum, t) => sum + Number(t.replace(/,/g, "")), 0),
    )
    .toBe(5);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  await page.getByRole("radiogroup", { name: "Quick choice of day" }).getByText("Yesterday").click();
  await expect(page).toHaveURL(new RegExp(`[?&]day=${yesterday}`));
  await expect(summary).toContainText(`(${yesterday}, UTC); none refused with 429`);
  await page.reload();
  await expect(page.getByTestId("day-summary")).toContainText(`(${yesterday}, UTC)`, { timeout: 60_000 });
  await page.goBack();
  await expect(page).toHaveURL(keyUrl);
  await expect(page.getByTestId("day-summary")).toContainText("5 requests on", { timeout: 60_000 });

  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await expectAccessible(page, `key analytics (${viewport.name})`);
    await expectNoHorizontalOverflow(page);
    await snap(page, testInfo, "key-analytics");
  }
  await page.setViewportSize(VIEWPORTS[0]);

  // The key's audit trail is one click away: the audit log filtered to this key.
  const keyId = /\/admin\/keys\/([0-9a-f-]+)/.exec(keyUrl)?.[1] ?? "";
  await page.getByRole("link", { name: "Audit log of this key" }).click();
  await expect(page).toHaveURL(/\/admin\/audit\?/);
  await expect(page.getByLabel("Entity id")).toHaveValue(keyId);
  await expect(
    page.getByRole("button", { name: `Changes of apiKey.create on apiKey ${name}` }),
  ).toBeVisible();

  // The overview counts the same requests in the whole API's traffic.
  await page.goto("/admin");
  const all = page.getByRole("region", { name: "All keys: requests, last 24 hours (UTC)" });
  await expect(all).toContainText(
    /[\d,]+ requests reached the API and [\d,]+ were refused with 429 in the last 24 hours/,
  );
  await expectAccessible(page, "overview traffic");
  await snap(page, testInfo, "overview-traffic");
});
