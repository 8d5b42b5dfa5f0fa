/** Shared steps of the e2e tests: signing in, screenshots at both sizes, accessibility scans, REST calls. */
import { AxeBuilder } from "@axe-core/playwright";
import { type APIRequestContext, expect, type Page, type TestInfo } from "@playwright/test";
import { readState } from "./accounts";

export interface Account {
  email: string;
  password: string;
}

/** Signs in through the form and waits for the dashboard. */
export async function signIn(page: Page, account: Account): Promise<void> {
  await page.goto("/admin/sign-in");
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel(/^Password/).fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
}

/**
 * Signs out with the shell's button and waits for the sign-in page. A page loaded in full (as after signing in)
 * shows the button before React has hydrated it, and a click then does nothing, as it would for a person; the
 * click is repeated until the page moves, as that person would.
 */
export async function signOut(page: Page): Promise<void> {
  await expect(async () => {
    if (!/\/admin\/sign-in$/.test(page.url()))
      await page.getByRole("button", { name: "Sign out" }).click({ timeout: 2_000 });
    await expect(page).toHaveURL(/\/admin\/sign-in$/, { timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
}

export const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

/**
 * Saves a full-page screenshot as test-results/screenshots/<name>-<viewport>.png and attaches it, when the run asks
 * for screenshots (E2E_SCREENSHOTS=1, playwright.config.ts); otherwise does nothing.
 */
export async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  if (!testInfo.config.metadata.screenshots) return;
  const width = page.viewportSize()?.width ?? 0;
  const file = `test-results/screenshots/${name}-${width}.png`;
  await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
  await testInfo.attach(`${name}-${width}`, { path: file, contentType: "image/png" });
}

/** Runs axe (WCAG 2.1 A/AA) on the page and fails on serious or critical violations. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const summary = bad.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .slice(0, 3)
        .map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ").trim()}`)
        .join(" | ")}`,
  );
  expect(summary, `accessibility violations on ${what}`).toEqual([]);
}

/** The page's document is not wider than the viewport (no sideways scrolling of the whole page). */
export async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(width);
}

/** GET `path` on the REST API with `key` (default: the checker key made by the server script). */
export function restGet(request: APIRequestContext, path: string, key = readState().checkerKey) {
  return request.get(path, { headers: { Authorization: `Bearer ${key}` } });
}

/** A name unique to this run, so tests can find what they created. */
export const unique = (base: string) => `${base} ${Date.now().toString(36)}`;
