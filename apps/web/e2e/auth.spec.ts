/** Sign-in throttling, session cookie and sign-out, as a browser user sees them. */
import { expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { signIn, snap } from "./support/helpers";

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
});

test("the session cookie is httpOnly and SameSite=Lax, and signing out ends the session", async ({
  page,
  browser,
}) => {
  await signIn(page, e2e.staff);
  const cookie = (await page.context().cookies()).find((c) => c.name === "petstore_session");
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
  expect(await page.evaluate(() => document.cookie)).not.toContain("petstore_session");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/admin\/sign-in$/);
  expect((await page.context().cookies()).some((c) => c.name === "petstore_session")).toBe(false);

  // The old token is dead on the server too, not just forgotten by this browser.
  const replay = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  await replay.addCookies([{ ...(cookie as NonNullable<typeof cookie>) }]);
  const stale = await replay.newPage();
  await stale.goto("/admin/animals");
  await expect(stale).toHaveURL(/\/admin\/sign-in$/);
  const me = await stale.request.get("/api/trpc/auth.me");
  expect((await me.json()).result.data).toBeNull();
  await replay.close();
});
