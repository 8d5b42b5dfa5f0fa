/**
 * A person's own credentials in the browser: "forgot password" by the mailed link (read from the e2e mail capture),
 * which works once; and turning on two-factor sign-in (a first code, recovery codes shown once), after which a sign-in
 * asks for a code from the app; an account's owner requires it of the members and sets it up at the next sign-in,
 * then sees their own sessions in the portal.
 */
import { expect, test } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { e2e } from "./support/accounts";
import { expectAccessible, signIn, unique } from "./support/helpers";
import { mailsTo, waitForMail } from "./support/mail";
import { acceptInvitation, createAccount, PASSWORD, signOutOfPortal } from "./support/portal";

test("a staff member resets a forgotten password with the mailed link, once", async ({ page }) => {
  const person = e2e.forgetful;
  const before = mailsTo(person.email).length;
  await page.goto("/admin/sign-in");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page.getByRole("heading", { name: "Forgot your password?" })).toBeVisible();
  await expectAccessible(page, "forgot-password");
  await page.getByLabel("Email").fill(person.email);
  await page.getByRole("button", { name: "Send the link" }).click();
  await expect(page.getByText("If this email has a Pet Store sign-in")).toBeVisible();

  const mail = await waitForMail(person.email, before + 1);
  expect(mail).toContain("Subject: Reset your Pet Store password");
  const link = /(http:\/\/\S+\/admin\/reset-password\/[A-Za-z0-9_-]{43})/.exec(mail)?.[1] ?? "";
  expect(link).not.toBe("");

  const newPassword = `new-${person.password}`;
  await page.goto(link);
  await page.getByLabel(/^New password/).fill(newPassword);
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.getByRole("heading", { name: "Your password is changed" })).toBeVisible();

  // The link works once.
  await page.goto(link);
  await page.getByLabel(/^New password/).fill(`again-${newPassword}`);
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.getByText("This link does not work")).toBeVisible();

  await signIn(page, { email: person.email, password: newPassword });
});

test("a staff member turns on two-factor sign-in, then signs in with a code", async ({ page, browser }) => {
  const person = e2e.twoFactor;
  await signIn(page, person);
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "Password and two-factor" })
    .click();
  await expect(page.getByRole("heading", { name: "Password and two-factor sign-in" })).toBeVisible();
  await expectAccessible(page, "security");
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  const secret = await page.getByLabel("Secret key").inputValue();
  await expect(page.getByLabel("Setup link")).toHaveValue(/^otpauth:\/\/totp\//);
  const totp = new TOTP({ secret: Secret.fromBase32(secret) });
  await page.getByLabel("Code from your app").fill(totp.generate());
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  await expect(page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem")).toHaveCount(10);
  await page.getByRole("button", { name: "I have stored the recovery codes" }).click();
  await expect(page.getByText("Recovery codes left: 10.")).toBeVisible();

  // Another browser: the password, then a code (the next step's: the first one was used up by the enrolment).
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const other = await context.newPage();
  await other.goto("/admin/sign-in");
  await other.getByLabel("Email").fill(person.email);
  await other.getByLabel(/^Password/).fill(person.password);
  await other.getByRole("button", { name: "Sign in" }).click();
  await other.getByLabel("Code").fill("000000");
  await other.getByRole("button", { name: "Verify" }).click();
  await expect(other.getByText("That code is not right")).toBeVisible();
  await other.getByLabel("Code").fill(totp.generate({ timestamp: Date.now() + 30_000 }));
  await other.getByRole("button", { name: "Verify" }).click();
  await expect(other.getByRole("heading", { name: "Overview" })).toBeVisible();
  await context.close();
});

test("an owner requires two-factor sign-in and sets it up at the next sign-in", async ({ page, browser }) => {
  const email = `two-factor-owner-${Date.now().toString(36)}@example.com`;
  const { invitationUrl } = await createAccount(browser, unique("Careful Shop"), email);
  await acceptInvitation(page, invitationUrl, "Olive Owner");
  // The switch shows the account's setting: it turns on once the server has saved it.
  const requirement = page.getByRole("switch", {
    name: /^Require two-factor sign-in for the account's members/,
  });
  await requirement.click();
  await expect(page.getByText("Members now set up two-factor sign-in at their next sign-in.")).toBeVisible();
  await expect(requirement).toBeChecked();
  await signOutOfPortal(page);

  await page.getByLabel("Email").fill(email);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/portal\/sign-in\/two-factor$/);
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  const secret = await page.getByLabel("Secret key").inputValue();
  await page
    .getByLabel("Code from your app")
    .fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  await page.getByRole("button", { name: "I have stored the recovery codes" }).click();
  await expect(page).toHaveURL(/\/portal$/);

  await page
    .getByRole("navigation", { name: "Portal pages" })
    .getByRole("link", { name: "Your sessions" })
    .click();
  await expect(page.getByRole("heading", { name: "Your sessions" })).toBeVisible();
  await expect(page.getByText("This browser")).toBeVisible();
});
