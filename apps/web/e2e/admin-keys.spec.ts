/**
 * An admin issues an API key in the dashboard, reads its secret once, uses it against the REST API, then
 * revokes it in the UI and sees the same call refused within 5 seconds.
 */
import { expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { restGet, signIn, snap, unique } from "./support/helpers";

test("issue a key, use it, revoke it: the API refuses it within 5 s", async ({ page, request }, testInfo) => {
  await signIn(page, e2e.admin);
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "API keys" })
    .click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();

  const name = unique("Partner shop");
  await page.getByRole("button", { name: "Issue key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Issue an API key" });
  // The form validates like the API does.
  await dialog.getByRole("button", { name: "Issue key" }).click();
  await expect(dialog.getByText("This cannot be empty.")).toBeVisible();
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole("combobox", { name: "Plan" }).click();
  await page.getByRole("option", { name: "Pro" }).click();
  await dialog.getByRole("button", { name: "Issue key" }).click();

  const secretDialog = page.getByRole("dialog", { name: "Your new API key" });
  await expect(secretDialog.getByText("This is the only time the full key is shown")).toBeVisible();
  const secret = await secretDialog.getByLabel("New API key").inputValue();
  expect(secret).toMatch(/^pet_test_[0-9A-Za-z]{38}$/);
  await expect(secretDialog.getByRole("button", { name: "Copy key" })).toBeVisible();
  await snap(page, testInfo, "keys-secret-once");
  await secretDialog.getByRole("button", { name: "I have stored the key" }).click();

  // The secret is never shown again: not in the list, not on the key's page.
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText(secret.slice(0, 12));
  await expect(row).toContainText("active");
  await expect(page.locator("body")).not.toContainText(secret);

  const allowed = await restGet(request, "/v1/pets?limit=5", secret);
  expect(allowed.status()).toBe(200);
  expect(Array.isArray(await allowed.json())).toBe(true);

  await row.getByRole("button", { name: /^Actions for/ }).click();
  await page.getByRole("menuitem", { name: "Revoke…" }).click();
  const confirm = page.getByRole("dialog", { name: `Revoke "${name}"?` });
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByText(`${secret.slice(0, 12)}… was revoked.`)).toBeVisible();
  const revokedAt = Date.now();
  let status = 0;
  while (Date.now() - revokedAt < 5_000) {
    status = (await restGet(request, "/v1/pets?limit=5", secret)).status();
    if (status === 401) break;
    await page.waitForTimeout(250);
  }
  expect(status, "the revoked key is refused within 5 s").toBe(401);
  await expect(row).toContainText("revoked");
  await snap(page, testInfo, "keys-list");

  // The key's own page, with its 30-day charts.
  await row.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { name: "Last 30 days", exact: true })).toBeVisible();
  for (const chart of ["Requests", "Rate-limited (429)", "Bans", "Deprecated getPet calls"]) {
    await expect(page.getByRole("region", { name: `${chart}, last 30 days`, exact: true })).toBeVisible();
  }
  await expect(page.locator("body")).not.toContainText(secret);
  await snap(page, testInfo, "key-detail");
});
