/**
 * Account security: a user sees where they are signed in (device from the User-Agent, address, times)
 * and signs other sessions out; an admin ends every session of another user. Ended sessions stop working
 * at once.
 */
import { type Browser, expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { openSignedIn, signIn, snap } from "./support/helpers";

const FIREFOX_ANDROID = "Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0";

/** A second browser (its own cookies), signed in as `account` with `userAgent`. */
async function otherBrowser(
  browser: Browser,
  account: { email: string; password: string },
  userAgent: string,
) {
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL, userAgent });
  const page = await context.newPage();
  await signIn(page, account);
  return { context, page };
}

test("a user lists their sessions and signs out another one", async ({ page, browser }, testInfo) => {
  const phone = await otherBrowser(browser, e2e.traveller, FIREFOX_ANDROID);
  await signIn(page, e2e.traveller);
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "Your sessions" })
    .click();
  await expect(page.getByRole("heading", { name: "Your sessions" })).toBeVisible();
  const current = page.getByRole("row").filter({ hasText: "This browser" });
  await expect(current).toHaveCount(1);
  await expect(current).toContainText("Chrom");
  const phoneRow = page.getByRole("row").filter({ hasText: "Firefox 128 on Android (mobile)" }).first();
  await expect(phoneRow).toBeVisible();
  await expect(phoneRow).toContainText("127.0.0.1");
  // Each session says when it ends at the latest: 30 days after sign-in.
  await expect(page.getByRole("columnheader", { name: "Ends at the latest" })).toBeVisible();
  await snap(page, testInfo, "sessions");

  await phoneRow.getByRole("button", { name: /^Sign out Firefox 128 on Android/ }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByText("The session was signed out.")).toBeVisible();
  await phone.page.goto("/admin/animals");
  await expect(phone.page).toHaveURL(/\/admin\/sign-in/);
  await phone.context.close();

  // "Sign out other sessions" keeps this browser.
  const another = await otherBrowser(browser, e2e.traveller, FIREFOX_ANDROID);
  await page.reload();
  await page.getByRole("button", { name: "Sign out other sessions" }).click();
  await page
    .getByRole("dialog")
    .getByRole("button", { name: /^Sign out \d+$/ })
    .click();
  await expect(page.getByText(/Signed out \d+ other session/)).toBeVisible();
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(2);
  await another.page.goto("/admin/animals");
  await expect(another.page).toHaveURL(/\/admin\/sign-in/);
  await another.context.close();
});

test("an admin ends every session of another user", async ({ page, browser }) => {
  const traveller = await otherBrowser(browser, e2e.traveller, FIREFOX_ANDROID);
  await openSignedIn(page, e2e.admin, "/admin/users");
  const row = page.getByRole("row").filter({ hasText: e2e.traveller.email });
  await row.getByRole("button", { name: `End sessions of ${e2e.traveller.name}` }).click();
  const confirm = page.getByRole("dialog", { name: `Sign ${e2e.traveller.name} out everywhere?` });
  await confirm.getByRole("button", { name: /^End \d+ sessions?$/ }).click();
  await expect(
    page.getByText(new RegExp(`${e2e.traveller.name} was signed out of \\d+ sessions?\\.`)),
  ).toBeVisible();
  await expect(row.getByRole("cell").nth(4)).toHaveText("0");
  await traveller.page.goto("/admin/animals");
  await expect(traveller.page).toHaveURL(/\/admin\/sign-in/);
  await traveller.context.close();

  await page.goto("/admin/audit?entity=user&actor=user%3Ae2e-admin%40example.com");
  await expect(page.getByRole("row").filter({ hasText: "user.endAllSessions" }).first()).toContainText(
    e2e.traveller.name,
  );
});
