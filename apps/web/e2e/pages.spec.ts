/**
 * Every main page at 1280x800 and 390x844: it renders without a Content Security Policy violation, has no
 * serious or critical accessibility violations (axe, WCAG 2.1 AA), does not scroll sideways, and its screenshot
 * is saved when asked for (E2E_SCREENSHOTS=1).
 */
import { expect, type Page, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import {
  expectAccessible,
  expectNoHorizontalOverflow,
  openSignedIn,
  snap,
  VIEWPORTS,
  watchViolations,
} from "./support/helpers";

const ADMIN_PAGES = [
  { path: "/admin", heading: "Overview", name: "overview" },
  { path: "/admin/animals", heading: "Animals", name: "animals" },
  { path: "/admin/categories", heading: "Categories", name: "categories" },
  { path: "/admin/orders", heading: "Orders", name: "orders" },
  { path: "/admin/keys", heading: "API keys", name: "keys" },
  { path: "/admin/accounts", heading: "Accounts", name: "accounts" },
  { path: "/admin/plans", heading: "Plans", name: "plans" },
  { path: "/admin/users", heading: "Users", name: "users" },
  { path: "/admin/audit", heading: "Audit log", name: "audit" },
  { path: "/admin/webhooks", heading: "Webhooks", name: "webhooks" },
  { path: "/admin/sessions", heading: "Your sessions", name: "sessions" },
  { path: "/admin/no-such-page", heading: "Page not found", name: "not-found" },
];

async function settle(page: Page) {
  await expect(page.locator("[aria-busy=true]")).toHaveCount(0);
}

for (const viewport of VIEWPORTS) {
  test.describe(`${viewport.name} ${viewport.width}x${viewport.height}`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("sign-in page", async ({ page }, testInfo) => {
      await page.goto("/admin/sign-in");
      await expect(page.getByRole("heading", { name: "Pet Store admin" })).toBeVisible();
      await expectAccessible(page, "sign-in");
      await expectNoHorizontalOverflow(page);
      await snap(page, testInfo, "sign-in");
    });

    test("admin pages", async ({ page }, testInfo) => {
      // Twelve pages, each scanned by axe: ten took about 55 s on a 2-core machine, too close to the 60 s default.
      test.slow();
      const violations = await watchViolations(page);
      await openSignedIn(page, e2e.admin, null);
      for (const p of ADMIN_PAGES) {
        await page.goto(p.path);
        await expect(page.getByRole("heading", { level: 1, name: p.heading })).toBeVisible();
        await settle(page);
        expect(await violations(), `Content Security Policy violations on ${p.path}`).toEqual([]);
        await expectAccessible(page, p.path);
        await expectNoHorizontalOverflow(page);
        await snap(page, testInfo, p.name);
      }
      // A key's page, with its charts filled, is scanned at both sizes in analytics.spec.ts.
    });

    test("dialogs", async ({ page }, testInfo) => {
      await openSignedIn(page, e2e.admin, "/admin/animals");
      await page.getByRole("button", { name: "New animal" }).click();
      await expect(page.getByRole("dialog", { name: "New animal" })).toBeVisible();
      await expectAccessible(page, "new animal dialog");
      await snap(page, testInfo, "animal-form");
      await page.keyboard.press("Escape");
      await expect(page.getByRole("dialog")).toHaveCount(0);

      await page.goto("/admin/keys");
      await page.getByRole("button", { name: "Issue key" }).first().click();
      await expect(page.getByRole("dialog", { name: "Issue an API key" })).toBeVisible();
      await expectAccessible(page, "issue key dialog");
      await snap(page, testInfo, "issue-key-form");
    });
  });
}

test.describe("phone 390x844", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("list rows are cards whose actions are on screen, not beyond a sideways scroll", async ({
    page,
  }, testInfo) => {
    await openSignedIn(page, e2e.admin, null);
    for (const { path, action } of [
      { path: "/admin/animals", action: /^Edit / },
      { path: "/admin/keys", action: /^Actions for / },
      { path: "/admin/categories", action: /^Rename / },
      { path: "/admin/users", action: /^Make (admin|staff)/ },
      { path: "/admin/audit", action: /^Changes of / },
    ]) {
      await page.goto(path);
      await settle(page);
      const button = page.getByRole("button", { name: action }).first();
      await expect(button).toBeVisible();
      const box = await button.boundingBox();
      expect(box, `${path}: action button has a box`).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? 0), `${path}: action inside the screen`).toBeLessThanOrEqual(390);
      await expect(page.getByRole("table")).toHaveCount(0);
      await expect(page.getByRole("listitem").first()).toBeVisible();
    }
    await snap(page, testInfo, "audit-cards");

    // The animals' cards have no header row: sorting and selecting the page stand above them, and the bulk bar
    // stays on screen at the end of a long list.
    await page.goto("/admin/animals");
    await settle(page);
    await page.getByRole("combobox", { name: "Sort by" }).click();
    await page.getByRole("option", { name: "Name, Z to A" }).click();
    await expect(page).toHaveURL(/sort=name/);
    await expect(page).toHaveURL(/dir=desc/);
    await settle(page);
    await page.getByRole("checkbox", { name: "Select all on this page" }).check();
    const bulk = page.getByRole("region", { name: "Bulk actions" });
    const cards = await page.getByRole("list", { name: "Animals table" }).getByRole("listitem").count();
    await expect(bulk).toContainText(`${cards} selected`);
    await page.getByRole("listitem").last().scrollIntoViewIfNeeded();
    await expect(bulk).toBeInViewport();
  });
});

test("the dashboard works with the keyboard alone", async ({ page }) => {
  await page.goto("/admin/sign-in");
  // The form takes the focus on its own: Email first.
  await expect(page.getByLabel("Email")).toBeFocused();
  await page.keyboard.type(e2e.staff.email);
  await page.keyboard.press("Tab");
  await page.keyboard.type(e2e.staff.password);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  // Skip link, then the navigation.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.goto("/admin/animals");
  const search = page.getByLabel("Search by name");
  await search.focus();
  // A focused field shows a ring, not only its 1 px border changing colour (Mantine's own cue). The assertions
  // retry: the page's stylesheet may still be applying when the field takes the focus.
  await expect(search).toBeFocused();
  await expect(search).toHaveCSS("outline-style", "solid");
  await expect(search).toHaveCSS("outline-width", "2px");
  await page.keyboard.type("Rex");
  await expect(page.getByRole("row").filter({ hasText: "Rex" })).toHaveCount(1);
  await page.getByRole("button", { name: "Edit Rex" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog", { name: "Edit Rex" })).toBeVisible();
  await expect(page.getByLabel(/^Name/)).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
});
