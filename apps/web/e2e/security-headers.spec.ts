/**
 * The Content Security Policy is on (proxy.ts) and the pages still work under it: every dashboard page, its
 * dialogs and charts, and the Swagger UI reference at /docs render and respond without a single CSP violation
 * (reported by the browser as `securitypolicyviolation` events and console errors). The sign-in page cannot
 * be framed by another site.
 */
import { expect, type Page, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { signIn } from "./support/helpers";

/** Starts collecting CSP violations of every document the page loads. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const console: string[] = [];
  page.on("console", (message) => {
    if (
      /Content Security Policy|Refused to (load|execute|apply|evaluate|connect|frame)/i.test(message.text())
    )
      console.push(message.text());
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  return async () => [
    ...console,
    ...(await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])),
  ];
}

test("the dashboard works under its Content Security Policy", async ({ page }) => {
  const violations = await watchViolations(page);
  const response = await page.goto("/admin/sign-in");
  expect(response?.headers()["content-security-policy"]).toContain("'strict-dynamic'");
  expect(await violations()).toEqual([]);
  await signIn(page, e2e.admin);
  expect(await violations()).toEqual([]);
  for (const [path, heading] of [
    ["/admin/animals", "Animals"],
    ["/admin/categories", "Categories"],
    ["/admin/keys", "API keys"],
    ["/admin/plans", "Plans"],
    ["/admin/users", "Users"],
    ["/admin/audit", "Audit log"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    await expect(page.locator("[aria-busy=true]")).toHaveCount(0);
    expect(await violations(), path).toEqual([]);
  }
  // Client-side navigation, a dialog with its transitions, toasts and the charts of a key.
  await page.goto("/admin/animals");
  await page.getByRole("button", { name: "New animal" }).click();
  await expect(page.getByRole("dialog", { name: "New animal" })).toBeVisible();
  await page.keyboard.press("Escape");
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "API keys" })
    .click();
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
