/**
 * The Content Security Policy is on (proxy.ts) and the pages still work under it: sign-in, client-side navigation,
 * a dialog and charts (every page loaded in full: pages.spec.ts), and the Swagger UI reference at /docs render and respond without a single CSP violation
 * (reported by the browser as `securitypolicyviolation` events and console errors). The sign-in page cannot
 * be framed by another site.
 */
import { expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { signIn, watchViolations } from "./support/helpers";

test("the dashboard works under its Content Security Policy", async ({ page }) => {
  const violations = await watchViolations(page);
  const response = await page.goto("/admin/sign-in");
  expect(response?.headers()["content-security-policy"]).toContain("'strict-dynamic'");
  expect(await violations()).toEqual([]);
  await signIn(page, e2e.admin);
  expect(await violations()).toEqual([]);
  // Every page loaded in full is watched in pages.spec.ts ("admin pages").
  // Client-side navigation, a dialog with its transitions, toasts and the charts of a key.
  await page.goto("/admin/animals");
  await page.getByRole("button", { name: "New animal" }).click();
  await expect(page.getByRole("dialog", { name: "New animal" })).toBeVisible();
  await page.keyboard.press("Escape");
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "API keys" })
    .click();
  // Other files add keys as they run: the key is found by its name, not by being on the first page.
  await page.getByRole("searchbox", { name: "Search by name or prefix" }).fill("e2e REST checker");
  await page.getByRole("link", { name: "e2e REST checker" }).click();
  await expect(page.getByRole("heading", { name: "Last 30 days", exact: true })).toBeVisible();
  await expect(page.locator(".recharts-surface").first()).toBeVisible();
  expect(await violations()).toEqual([]);
});

test("the API reference works under its Content Security Policy", async ({ page }) => {
  const violations = await watchViolations(page);
  const response = await page.goto("/docs");
  expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
  await expect(page.getByRole("heading", { name: /Pet Store/ }).first()).toBeVisible();
  const operation = page.locator(".opblock-summary").first();
  await operation.click();
  await expect(page.getByRole("button", { name: "Try it out" }).first()).toBeVisible();
  expect(await violations()).toEqual([]);
});

test("another site cannot frame the sign-in page", async ({ page }) => {
  // A page from another origin (a data: URL) that tries to frame the dashboard.
  await page.setContent(
    `<iframe id="f" src="${e2e.baseUrl}/admin/sign-in" width="400" height="300"></iframe>`,
  );
  const frame = page.frameLocator("#f");
  await expect(frame.getByRole("heading", { name: "Pet Store admin" })).toHaveCount(0, { timeout: 3_000 });
});
