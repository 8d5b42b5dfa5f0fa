/**
 * The developer portal (docs/contract.md section 7) as a new account's owner meets it: an admin creates the
 * account (through the admin API: `accounts.create`), the owner accepts the invitation, creates a key and reads
 * its secret once, calls the REST API with it and finds that request on the key's page, invites a developer, and
 * signs out; the link then no longer works. Rolling and revoking keys, a suspended account, managing members
 * (role changes, removal), the portal's sign-in (members to the portal, staff to the dashboard) and a member's visit
 * to /admin have tests of their own. Every page passes axe.
 */
import { expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import {
  expectAccessible,
  expectNoHorizontalOverflow,
  restGet,
  snap,
  unique,
  VIEWPORTS,
} from "./support/helpers";
import {
  acceptInvitation,
  asAdmin,
  createAccount,
  createKey,
  PASSWORD,
  signOutOfPortal,
} from "./support/portal";

test("an owner joins, creates a key, sees its request on the key's page, invites a developer and signs out", async ({
  page,
  browser,
  request,
}, testInfo) => {
  const accountName = unique("Acme Pets");
  const ownerEmail = `owner-${Date.now().toString(36)}@example.com`;
  const { invitationUrl } = await createAccount(browser, accountName, ownerEmail);
  expect(invitationUrl).toMatch(/\/portal\/invitations\/[A-Za-z0-9_-]{43}$/);

  await page.goto(invitationUrl);
  await expect(page.getByRole("heading", { name: `Join ${accountName}` })).toBeVisible();
  await expect(page.getByText("as an owner")).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue(ownerEmail);
  await expect(page.getByLabel(/^Your name/)).toBeFocused();
  await expectAccessible(page, "the invitation page");
  // The form checks the password as the API does.
  await page.getByLabel(/^Your name/).fill("Olive Owner");
  await page.getByLabel(/^Password/).fill("too short");
  await page.getByRole("button", { name: "Accept and sign in" }).click();
  await expect(page.getByText("Use at least 12 characters.")).toBeVisible();
  await snap(page, testInfo, "portal-invitation");
  await acceptInvitation(page, invitationUrl, "Olive Owner");

  await expect(page.getByRole("heading", { name: accountName, level: 1 })).toBeVisible();
  const summary = page.getByRole("region", { name: "Account summary" });
  await expect(summary).toContainText("Pro");
  await expect(summary).toContainText("0 of 10");
  await expectAccessible(page, "the portal's account page");

  const keyName = unique("Storefront");
  const secret = await createKey(page, keyName);
  const row = page.getByRole("row").filter({ hasText: keyName });
  await expect(row).toContainText(secret.slice(0, 12));
  await expect(row).toContainText("Active");
  await expect(summary).toContainText("1 of 10");
  await expect(page.locator("body")).not.toContainText(secret);
  await snap(page, testInfo, "portal-account");

  const call = await restGet(request, "/v1/pets?limit=3", secret);
  expect(call.status()).toBe(200);
  const requestId = call.headers()["x-request-id"] ?? "";
  expect(requestId).not.toBe("");

  await row.getByRole("link", { name: keyName }).click();
  await expect(page.getByRole("heading", { name: keyName, level: 1 })).toBeVisible();
  const recent = page.getByRole("region", { name: "Recent requests table" });
  // The recent-requests store is written after the answer: the page refreshes until the request is there.
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(recent.getByRole("row").filter({ hasText: requestId })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  const entry = recent.getByRole("row").filter({ hasText: requestId });
  await expect(entry).toContainText("listPets");
  await expect(entry).toContainText("200");
  await expectAccessible(page, "the portal's key page");
  await snap(page, testInfo, "portal-key");

  // The owner invites a developer; the link is shown once and the invitation is listed.
  await page.getByRole("link", { name: "← Your account" }).click();
  await page.getByRole("button", { name: "Invite member" }).click();
  const invite = page.getByRole("dialog", { name: "Invite a member" });
  const developerEmail = `dev-${Date.now().toString(36)}@example.com`;
  await invite.getByLabel(/^Email/).fill(developerEmail);
  await invite.getByRole("button", { name: "Invite" }).click();
  const linkDialog = page.getByRole("dialog", { name: "Send the invitation link" });
  await expect(linkDialog.getByLabel("Invitation link", { exact: true })).toHaveValue(
    /\/portal\/invitations\/[A-Za-z0-9_-]{43}$/,
  );
  await expect(linkDialog.getByRole("button", { name: "Copy link" })).toBeVisible();
  await linkDialog.getByRole("button", { name: "Done" }).click();
  await expect(page.getByRole("region", { name: "Open invitations table" })).toContainText(developerEmail);
  await expect(page.getByRole("region", { name: "Members table" })).toContainText(ownerEmail);

  await signOutOfPortal(page);
  await page.goto("/portal");
  await expect(page).toHaveURL(/\/portal\/sign-in$/);

  // The link was used: it says so instead of offering the form again.
  await page.goto(invitationUrl);
  await expect(page.getByRole("heading", { name: "This invitation link does not work" })).toBeVisible();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("already used, it expired");
});

test("roll a key (the new secret once; the old key stops), revoke it after confirming; a suspended account says so", async ({
  page,
  browser,
  request,
}) => {
  const { id, invitationUrl } = await createAccount(
    browser,
    unique("Roll Co"),
    `roll-${Date.now().toString(36)}@example.com`,
    "free",
  );
  await acceptInvitation(page, invitationUrl, "Rolf Roller");
  await expect(page.getByRole("region", { name: "Account summary" })).toContainText("0 of 3");
  const keyName = unique("Worker");
  const secret = await createKey(page, keyName);
  const row = page.getByRole("row").filter({ hasText: keyName });

  await row.getByRole("button", { name: `Roll ${keyName}` }).click();
  const roll = page.getByRole("dialog", { name: `Roll "${keyName}"` });
  await roll.getByRole("combobox", { name: "The old key keeps working for" }).click();
  await page.getByRole("option", { name: /^None/ }).click();
  await roll.getByRole("button", { name: "Roll key" }).click();
  const secretDialog = page.getByRole("dialog", { name: "Your new API key" });
  const rolled = await secretDialog.getByLabel("New API key").inputValue();
  expect(rolled).not.toBe(secret);
  await secretDialog.getByRole("button", { name: "I have stored the key" }).click();
  await expect(async () => {
    expect((await restGet(request, "/v1/pets?limit=1", secret)).status()).toBe(401);
  }).toPass({ timeout: 10_000 });
  expect((await restGet(request, "/v1/pets?limit=1", rolled)).status()).toBe(200);

  // Key history: the two keys of one name are told apart, and each key's page links the other.
  const [oldPrefix, newPrefix] = [secret.slice(0, 12), rolled.slice(0, 12)];
  const oldRow = page.getByRole("row").filter({ hasText: oldPrefix });
  await expect(oldRow).toContainText("Replaced by a roll");
  await expect(page.getByRole("row").filter({ hasText: newPrefix })).not.toContainText("Replaced by a roll");
  await oldRow.getByRole("link", { name: `${keyName} (${oldPrefix}…)` }).click();
  await page.getByRole("link", { name: `Rolled to ${newPrefix}…` }).click();
  await expect(page.getByRole("heading", { name: keyName })).toBeVisible();
  await expect(page.getByText(`${newPrefix}…`).first()).toBeVisible();
  await expectAccessible(page, "a rolled key's page in the portal");
  await page.getByRole("link", { name: `Rolled from ${oldPrefix}…` }).click();
  await expect(page.getByRole("link", { name: `Rolled to ${newPrefix}…` })).toBeVisible();
  await page.getByRole("link", { name: "← Your account" }).click();

  const current = page.getByRole("row").filter({ hasText: rolled.slice(0, 12) });
  await current.getByRole("button", { name: `Revoke ${keyName}` }).click();
  const confirm = page.getByRole("dialog", { name: `Revoke "${keyName}"?` });
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(current).toContainText("Revoked");
  await expect(async () => {
    expect((await restGet(request, "/v1/pets?limit=1", rolled)).status()).toBe(401);
  }).toPass({ timeout: 10_000 });

  const spare = unique("Spare");
  const spareSecret = await createKey(page, spare);
  await expect(page.getByRole("button", { name: `Roll ${spare}` })).toBeVisible();
  await asAdmin(browser, "accounts.setSuspended", { id, suspended: true });
  await page.reload();
  await expect(page.getByRole("alert").filter({ hasText: "This account is suspended" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Create key" })).toBeDisabled();
  await expect(page.getByRole("button", { name: `Revoke ${spare}` })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Roll / })).toHaveCount(0);
  await expectAccessible(page, "a suspended account's page");
  await expect(async () => {
    expect((await restGet(request, "/v1/pets?limit=1", spareSecret)).status()).toBe(401);
  }).toPass({ timeout: 10_000 });
});

test("an owner makes a developer an owner and back, then removes them after confirming; the only owner is offered neither", async ({
  page,
  browser,
}) => {
  const stamp = Date.now().toString(36);
  const { id, invitationUrl } = await createAccount(
    browser,
    unique("Crew Co"),
    `crew-${stamp}@example.com`,
    "free",
  );
  const invited = await asAdmin<{ invitationUrl: string }>(browser, "accounts.invite", {
    accountId: id,
    email: `crew-dev-${stamp}@example.com`,
    role: "developer",
  });
  // The developer joins in a browser of their own.
  const devContext = await browser.newContext({ baseURL: e2e.baseUrl });
  const dev = await devContext.newPage();
  await acceptInvitation(dev, invited.invitationUrl, "Dana Dev");
  await acceptInvitation(page, invitationUrl, "Carl Crew");

  const members = page.getByRole("region", { name: "Members table" });
  const ownerRow = members.getByRole("row").filter({ hasText: "Carl Crew" });
  const devRow = members.getByRole("row").filter({ hasText: "Dana Dev" });
  await expect(ownerRow).toContainText("(you)");
  await expect(ownerRow).toContainText("The only owner");
  await expect(ownerRow.getByRole("button")).toHaveCount(0);

  await devRow.getByRole("button", { name: "Make owner: Dana Dev" }).click();
  await page
    .getByRole("dialog", { name: "Make Dana Dev an owner?" })
    .getByRole("button", { name: "Make owner" })
    .click();
  await expect(devRow.getByRole("button", { name: "Make developer: Dana Dev" })).toBeVisible();
  // With a second owner, the first may step down or leave.
  await expect(ownerRow.getByRole("button", { name: "Leave the account" })).toBeVisible();
  await devRow.getByRole("button", { name: "Make developer: Dana Dev" }).click();
  await page
    .getByRole("dialog", { name: "Make Dana Dev a developer?" })
    .getByRole("button", { name: "Make developer" })
    .click();
  await expect(devRow.getByRole("button", { name: "Make owner: Dana Dev" })).toBeVisible();
  await expect(ownerRow).toContainText("The only owner");

  // The notices of the role changes fade out first; axe would read their text mid-fade as low contrast.
  await expect(page.getByText(/^Dana Dev is now/)).toHaveCount(0, { timeout: 15_000 });
  await devRow.getByRole("button", { name: "Remove Dana Dev" }).click();
  const confirm = page.getByRole("dialog", { name: "Remove Dana Dev?" });
  await expect(confirm).toContainText("signed out at once");
  await expectAccessible(page, "the confirmation of a member's removal");
  await confirm.getByRole("button", { name: "Remove member" }).click();
  await expect(confirm).toBeHidden();
  await expect(members).not.toContainText("Dana Dev");
  // The removed developer's session is over: their next page is the sign-in.
  await dev.reload();
  await expect(dev).toHaveURL(/\/portal\/sign-in\?reason=removed$/);
  // With the word why, not a bare form nor a guess among reasons.
  const why = dev.getByRole("status").filter({ hasText: "You were removed from the account" });
  await expect(why).toContainText("ask an owner of the account for a new invitation");
  await expectAccessible(dev, "the sign-in page of a removed member");
  // A tab sent to sign in by a refused call (`reason=ended`) is told the same.
  await dev.goto("/portal/sign-in?reason=ended");
  await expect(
    dev.getByRole("status").filter({ hasText: "You were removed from the account" }),
  ).toBeVisible();
  await devContext.close();
});

test("the portal's sign-in: members go to the portal, staff to the dashboard; members never see /admin", async ({
  page,
  browser,
}, testInfo) => {
  const email = `member-${Date.now().toString(36)}@example.com`;
  const { invitationUrl } = await createAccount(browser, unique("Signers"), email);
  await acceptInvitation(page, invitationUrl, "Mia Member");
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto("/admin/keys");
  await expect(page).toHaveURL(/\/portal$/);
  // On a phone the lists are cards and nothing scrolls sideways.
  await page.setViewportSize({ width: VIEWPORTS[1].width, height: VIEWPORTS[1].height });
  await expect(page.getByRole("list", { name: "Members table" })).toContainText(email);
  await expectNoHorizontalOverflow(page);
  await expectAccessible(page, "the portal's account page on a phone");
  await snap(page, testInfo, "portal-account-phone");
  await page.setViewportSize({ width: VIEWPORTS[0].width, height: VIEWPORTS[0].height });
  await signOutOfPortal(page);

  await expect(page.getByLabel("Email")).toBeFocused();
  await expectAccessible(page, "the portal's sign-in page");
  await snap(page, testInfo, "portal-sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
  await signOutOfPortal(page);

  // A member who signs in on the admin's page lands in the portal too.
  await page.goto("/admin/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/portal$/);
  await signOutOfPortal(page);

  const staff = await browser.newContext({ baseURL: e2e.baseUrl });
  const staffPage = await staff.newPage();
  await staffPage.goto("/portal/sign-in");
  await staffPage.getByLabel("Email").fill(e2e.staff.email);
  await staffPage.getByLabel(/^Password/).fill(e2e.staff.password);
  await staffPage.getByRole("button", { name: "Sign in" }).click();
  await expect(staffPage.getByRole("heading", { name: "Overview" })).toBeVisible();
  await staffPage.goto("/portal");
  await expect(staffPage).toHaveURL(/\/admin$/);
  await staff.close();
});

test("a link that is not an invitation says so", async ({ page }) => {
  await page.goto(`/portal/invitations/${"x".repeat(43)}`);
  await expect(page.getByRole("heading", { name: "This invitation link does not work" })).toBeVisible();
  await expectAccessible(page, "the invalid invitation page");
  await page.goto("/portal/invitations/short");
  await expect(page.getByRole("heading", { name: "This invitation link does not work" })).toBeVisible();
});
