/** Shared steps of the e2e tests: signing in, screenshots at both sizes, accessibility scans, REST calls. */
import { AxeBuilder } from "@axe-core/playwright";
import {
  type APIRequestContext,
  type BrowserContext,
  expect,
  type Page,
  type TestInfo,
} from "@playwright/test";
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

type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;

/** Each account's session and device cookies, from its first sign-in in this worker process. */
const sessionCookies = new Map<string, Cookies>();

/**
 * Signs the page's browser in as `account` and opens `path` (default the overview; `null` opens nothing, for a test
 * that goes on with `page.request` or its own navigation). The first call for an account in a worker signs in
 * through the form; later calls give the browser context the cookies that sign-in set, as a person's browser keeps
 * them, so a test that is not about signing in skips the form and the overview it lands on. No test ends these
 * sessions: the tests that end sessions use their own account (`e2e.traveller`).
 */
export async function openSignedIn(
  page: Page,
  account: Account,
  path: string | null = "/admin",
): Promise<void> {
  const cookies = sessionCookies.get(account.email);
  if (!cookies) {
    await signIn(page, account);
    sessionCookies.set(account.email, await page.context().cookies());
    if (path === "/admin" || path === null) return;
  } else {
    await page.context().addCookies(cookies);
    if (path === null) return;
  }
  await page.goto(path);
  await expect(page, `signed in as ${account.email}`).not.toHaveURL(/\/admin\/sign-in/);
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

/**
 * Runs axe (WCAG 2.1 A/AA, or only the axe `rules` given) on the page, once it has its title, and fails on serious
 * or critical violations. Legacy mode runs axe in the page's one frame: the dashboard has no frames, and the default
 * mode opens a blank page for every scan to merge frames' results, which doubles a scan's time.
 */
export async function expectAccessible(page: Page, what: string, rules?: string[]): Promise<void> {
  // Next streams a page's metadata after its shell, and a client-side navigation (Back included) replaces the
  // title once the new page's metadata arrives: scanning before then reports a document without a title.
  await expect(page, `${what} has a title`).toHaveTitle(/\S/);
  const builder = new AxeBuilder({ page }).setLegacyMode();
  const results = await (rules
    ? builder.withRules(rules)
    : builder.withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
  ).analyze();
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
  // Retried: after a viewport change, layouts chosen by media-query hooks settle on the next render.
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), {
      message: "the page is wider than the viewport by (px)",
    })
    .toBeLessThanOrEqual(0);
}

/** GET `path` on the REST API with `key` (default: the checker key made by the server script). */
export function restGet(request: APIRequestContext, path: string, key = readState().checkerKey) {
  return request.get(path, { headers: { Authorization: `Bearer ${key}` } });
}

/** A name unique to this run, so tests can find what they created. */
export const unique = (base: string) => `${base} ${Date.now().toString(36)}`;

/**
 * Starts collecting the Content Security Policy violations of every document the page loads (`securitypolicyviolation`
 * events and the console's CSP errors). @returns a function giving those seen so far.
 */
export async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
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
