/**
 * Sign-in throttling (device cookies included: docs/contract.md section 4), session cookie and sign-out, as a
 * browser user sees them.
 */
import { expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { signIn, signOut, snap } from "./support/helpers";

test.describe(() => {
  // This test's failures come from its own client address, so they cannot throttle the other tests.
  test.use({ extraHTTPHeaders: { "X-Forwarded-For": "203.0.113.50" } });

  test("wrong passwords are throttled, say when sign-in opens again, and lock out no one else", async ({
    page,
    browser,
  }, testInfo) => {
    await page.goto("/admin/sign-in");
    const attempt = async (email: string, password: string) => {
      await page.getByLabel("Email").fill(email);
      await page.getByLabel(/^Password/).fill(password);
      const answered = page.waitForResponse((r) => r.url().includes("/api/trpc/auth.signIn"));
      await page.getByRole("button", { name: "Sign in" }).click();
      await answered;
    };
    for (let i = 1; i <= 5; i++) {
      await attempt(e2e.throttled.email, `wrong password ${i}`);
      await expect(page.getByRole("alert", { name: "Sign-in failed" })).toContainText(
        "The email or password is incorrect.",
      );
      await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
    }
    // Even the right password is refused now, from this address.
    await attempt(e2e.throttled.email, e2e.throttled.password);
    const alert = page.getByRole("alert", { name: "Sign-in failed" });
    await expect(alert).toContainText("Too many failed sign-in attempts. Try again in 1 minute.");
    await expect(alert).toContainText(/Sign-in opens again at \d{2}:\d{2}\./);
    await expect(page).toHaveURL(/\/admin\/sign-in$/);
    await snap(page, testInfo, "sign-in-throttled");
    // An unknown email gets the same words once it is throttled the same way.
    for (let i = 1; i <= 5; i++) await attempt("nobody@example.com", `whatever ${i}`);
    await attempt("nobody@example.com", "whatever");
    await expect(alert).toContainText("Too many failed sign-in attempts. Try again in 1 minute.");

    // The account's owner, from another address, is not locked out.
    const owner = await browser.newContext({
      baseURL: test.info().project.use.baseURL,
      extraHTTPHeaders: { "X-Forwarded-For": "203.0.113.51" },
    });
    await signIn(await owner.newPage(), e2e.throttled);
    await owner.close();
  });

  test("strangers' wrong passwords from 20 addresses lock new browsers out, not the owner's", async ({
    browser,
    playwright,
  }) => {
    // 100 password checks (scrypt) on a shared machine.
    test.setTimeout(150_000);
    const baseURL = test.info().project.use.baseURL;
    // The owner's browser signed in before (and out again): it keeps its device cookie.
    const owner = await browser.newContext({
      baseURL,
      extraHTTPHeaders: { "X-Forwarded-For": "203.0.113.60" },
    });
    const ownerPage = await owner.newPage();
    await signIn(ownerPage, e2e.throttled);
    await signOut(ownerPage);

    // Strangers: 5 wrong passwords from each of 20 addresses.
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const stranger = await playwright.request.newContext({
          baseURL,
          extraHTTPHeaders: { "X-Forwarded-For": `198.18.0.${i + 1}` },
        });
        for (let n = 0; n < 5; n++)
          await stranger.post("/api/trpc/auth.signIn", {
            data: { email: e2e.throttled.email, password: `guess ${i} ${n}` },
          });
        await stranger.dispose();
      }),
    );

    // A new browser, even with the right password, waits 15 minutes.
    const other = await browser.newContext({
      baseURL,
      extraHTTPHeaders: { "X-Forwarded-For": "203.0.113.61" },
    });
    const otherPage = await other.newPage();
    await otherPage.goto("/admin/sign-in");
    await otherPage.getByLabel("Email").fill(e2e.throttled.email);
    await otherPage.getByLabel(/^Password/).fill(e2e.throttled.password);
    await otherPage.getByRole("button", { name: "Sign in" }).click();
    await expect(otherPage.getByRole("alert", { name: "Sign-in failed" })).toContainText(
      "Too many failed sign-in attempts. Try again in 15 minutes.",
    );
    await other.close();

    // The owner's browser signs in at once.
    await signIn(ownerPage, e2e.throttled);
    await owner.close();
  });
});

test("the session cookie is httpOnly and SameSite=Lax, the device cookie stays, and signing out ends the session", async ({
  page,
  browser,
}) => {
  await page.goto("/admin/sign-in");
  // The page's one task: the cursor waits in Email when it opens.
  await expect(page.getByLabel("Email")).toBeFocused();
  await signIn(page, e2e.staff);
  const cookie = (await page.context().cookies()).find((c) => c.name === "petstore_session");
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
  expect(await page.evaluate(() => document.cookie)).not.toContain("petstore_session");
  // The device cookie: sent only to the API, kept 90 days, invisible to scripts.
  const device = (await page.context().cookies()).find((c) => c.name === "petstore_device");
  expect(device).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/api/trpc" });
  expect((device?.expires ?? 0) * 1000 - Date.now()).toBeGreaterThan(89 * 86_400_000);
  expect(await page.evaluate(() => document.cookie)).not.toContain("petstore_device");

  await signOut(page);
  expect((await page.context().cookies()).some((c) => c.name === "petstore_session")).toBe(false);
  // Signing out ends the session, not the browser's standing as a known device.
  expect((await page.context().cookies()).some((c) => c.name === "petstore_device")).toBe(true);

  // The old token is dead on the server too, not just forgotten by this browser.
  const replay = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  await replay.addCookies([{ ...(cookie as NonNullable<typeof cookie>) }]);
  const stale = await replay.newPage();
  await stale.goto("/admin/animals");
  // The browser still held a session cookie: the sign-in page says the session ended.
  await expect(stale).toHaveURL(/\/admin\/sign-in\?reason=ended$/);
  await expect(stale.getByRole("status").filter({ hasText: "You were signed out" })).toBeVisible();
  const me = await stale.request.get("/api/trpc/auth.me");
  expect((await me.json()).result.data).toBeNull();
  await replay.close();
});
