/** Who may see what: staff never reach admin pages or procedures; nobody gets in without a session. */
import { expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { openSignedIn, snap } from "./support/helpers";

test("a staff user cannot reach the API keys page", async ({ page }, testInfo) => {
  await openSignedIn(page, e2e.staff);
  const nav = page.getByRole("navigation", { name: "Dashboard pages" });
  await expect(nav.getByRole("link", { name: "Animals" })).toBeVisible();
  for (const hidden of ["API keys", "Accounts", "Plans", "Users", "Audit log", "Webhooks"]) {
    await expect(nav.getByRole("link", { name: hidden })).toHaveCount(0);
  }
  await page.goto("/admin/keys");
  await expect(page.getByRole("heading", { name: "Admins only" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Issue key" })).toHaveCount(0);
  await snap(page, testInfo, "staff-keys-denied");
  await page.goto("/admin/webhooks");
  await expect(page.getByRole("heading", { name: "Admins only" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Add endpoint" })).toHaveCount(0);

  // The API behind the page refuses too.
  const list = await page.request.get("/api/trpc/apiKeys.list");
  expect(list.status()).toBe(403);
  expect((await list.json()).error.data.code).toBe("FORBIDDEN");
  // Staff see the animal overview but no key figures.
  await page.goto("/admin");
  const byStatus = page.getByRole("region", { name: "Animals by status" });
  await expect(byStatus).toBeVisible();
  // The legend's entries carry the colour of their part of the chart.
  await expect(byStatus.locator("[data-legend-swatch]")).toHaveCount(4);
  await expect(page.getByText("Working keys")).toHaveCount(0);
});

test("without a session the dashboard sends you to sign in, and its API answers 401", async ({ page }) => {
  await page.goto("/admin/animals");
  await expect(page).toHaveURL(/\/admin\/sign-in$/);
  const response = await page.request.get("/api/trpc/pets.search?input=%7B%7D");
  expect(response.status()).toBe(401);
});

test("state-changing calls from another site are refused", async ({ page }) => {
  await openSignedIn(page, e2e.admin, null);
  const forged = await page.request.post("/api/trpc/categories.create", {
    headers: { Origin: "https://evil.example", "Content-Type": "application/json" },
    data: { name: "forged" },
  });
  expect(forged.status()).toBe(403);
  const mutationOverGet = await page.request.get(
    `/api/trpc/categories.create?input=${encodeURIComponent(JSON.stringify({ name: "via-get" }))}`,
  );
  expect(mutationOverGet.status()).toBe(405);
  await page.goto("/admin/categories");
  await expect(page.getByRole("cell", { name: "forged" })).toHaveCount(0);
  await expect(page.getByRole("cell", { name: "via-get" })).toHaveCount(0);
});
