/**
 * An admin creates a consumer account in the dashboard and reads its owner's invitation link once, finds the
 * account in the list by its name, opens it, invites a developer (that link shown once too), changes its plan and
 * suspends and resumes it, each after confirming: a key of the account answers 401 within 5 s of the suspension
 * and works again after the resumption. The account's key links its page, which links the account back. Both
 * pages are scanned by axe (the account's on a phone too), and its audit link lists its changes; an id no account
 * has is the dashboard's 404. An account is refused Enterprise until it has its own limits, set on its page, which
 * also shows its usage and its request log (a request found there by its X-Request-Id).
 */
import { type APIRequestContext, expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import {
  expectAccessible,
  expectNoHorizontalOverflow,
  openSignedIn,
  restGet,
  snap,
  unique,
  VIEWPORTS,
} from "./support/helpers";

/** The owner accepts the invitation (signing in `request`) and creates a key of the account: its secret. */
async function ownerKey(request: APIRequestContext, invitationUrl: string, name: string): Promise<string> {
  const token = invitationUrl.split("/").pop();
  const accepted = await request.post("/api/trpc/portal.acceptInvitation", {
    data: { token, name: "Owner", password: "correct horse battery staple" },
  });
  expect(accepted.status()).toBe(200);
  const created = await request.post("/api/trpc/portal.keys.create", { data: { name } });
  expect(created.status()).toBe(200);
  return (await created.json()).result.data.key;
}

/** The status `/v1/pets` answers `key` with, polled for up to 5 s until it is `status`. */
async function statusWithin5s(request: APIRequestContext, key: string, status: number): Promise<number> {
  const start = Date.now();
  let seen = 0;
  while (Date.now() - start < 5_000) {
    seen = (await restGet(request, "/v1/pets?limit=1", key)).status();
    if (seen === status) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return seen;
}

test("create an account, find it, invite a developer, change its plan, suspend and resume it", async ({
  page,
  request,
}, testInfo) => {
  test.slow();
  await openSignedIn(page, e2e.admin);
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "Accounts" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Accounts" })).toBeVisible();

  const name = unique("Acme Pets");
  const ownerEmail = `owner-${Date.now().toString(36)}@acme.example`;
  await page.getByRole("button", { name: "New account" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New account" });
  // The form validates like the API does.
  await dialog.getByRole("button", { name: "Create account" }).click();
  await expect(dialog.getByText("This cannot be empty.").first()).toBeVisible();
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole("combobox", { name: "Plan" }).click();
  await page.getByRole("option", { name: "Pro" }).click();
  await dialog.getByLabel(/^Owner's email/).fill(ownerEmail);
  await dialog.getByRole("button", { name: "Create account" }).click();

  const linkDialog = page.getByRole("dialog", { name: "Invite the account's owner" });
  await expect(linkDialog.getByText("valid for 72 hours and can be used once")).toBeVisible();
  const invitationUrl = await linkDialog.getByLabel("Invitation link", { exact: true }).inputValue();
  expect(invitationUrl).toMatch(/\/portal\/invitations\/[A-Za-z0-9_-]{43}$/);
  await expect(linkDialog.getByRole("button", { name: "Copy link" })).toBeVisible();
  await expectAccessible(page, "the invitation link dialog");
  await snap(page, testInfo, "account-invitation-once");
  await linkDialog.getByRole("button", { name: "Done" }).click();
  await expect(page.locator("body")).not.toContainText(invitationUrl);

  // Found by its name; the search, a filter and the sort are in the URL.
  await page.getByLabel("Search by name").fill(name);
  await expect(page).toHaveURL(/[?&]q=/);
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Pro");
  await expect(row).toContainText("Active");
  await expect(row).toContainText("0 / 10");
  await page.getByRole("button", { name: /^Live keys/ }).click();
  await expect(page).toHaveURL(/[?&]sort=keys(&|$)/);
  await expect(page).toHaveURL(/[?&]dir=desc(&|$)/);
  await expect(page.getByRole("columnheader", { name: /^Live keys/ })).toHaveAttribute(
    "aria-sort",
    "descending",
  );
  await expectAccessible(page, "/admin/accounts");
  await snap(page, testInfo, "accounts");

  // A key of the account, made by its owner in the portal, works.
  const secret = await ownerKey(request, invitationUrl, unique("Owner key"));
  expect((await restGet(request, "/v1/pets?limit=1", secret)).status()).toBe(200);

  await row.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page.getByRole("link", { name: "Audit log of this account →" })).toHaveAttribute(
    "href",
    /\/admin\/audit\?entity=account&id=[0-9a-f-]{36}$/,
  );
  await expect(page.getByRole("region", { name: "Members table" })).toContainText(ownerEmail);

  // Invite a developer: the link is shown once, and the invitation is listed as open.
  const developer = `dev-${Date.now().toString(36)}@acme.example`;
  await page.getByRole("button", { name: "Invite member" }).click();
  const invite = page.getByRole("dialog", { name: "Invite a member" });
  await invite.getByLabel(/^Email/).fill(developer);
  await expect(invite.getByRole("combobox", { name: "Role" })).toHaveValue(/^Developer/);
  await invite.getByRole("button", { name: "Invite" }).click();
  const sent = page.getByRole("dialog", { name: "Send the invitation link" });
  const devLink = await sent.getByLabel("Invitation link", { exact: true }).inputValue();
  expect(devLink).toMatch(/\/portal\/invitations\/[A-Za-z0-9_-]{43}$/);
  await sent.getByRole("button", { name: "Done" }).click();
  await expect(page.getByRole("region", { name: "Open invitations table" })).toContainText(developer);
  await expect(page.locator("body")).not.toContainText(devLink);

  // Change the plan after confirming: the account and its key move to it.
  await page.getByRole("combobox", { name: "Change plan" }).click();
  await page.getByRole("option", { name: "Business" }).click();
  const planDialog = page.getByRole("dialog", { name: `Move "${name}" to the Business plan?` });
  await planDialog.getByRole("button", { name: "Change to Business" }).click();
  await expect(page.getByText(`"${name}" is now on the Business plan.`)).toBeVisible();
  await expect(page.getByText("1 / 25")).toBeVisible();

  // The account's key links its page, which links the account back.
  const keys = page.getByRole("region", { name: "Keys of this account table" });
  await expect(keys).toContainText("active");
  await expectAccessible(page, "an account's page");
  await snap(page, testInfo, "account-detail");

  // Suspend after confirming: the key answers 401 within 5 s; resumed, it works again.
  await page.getByRole("button", { name: "Suspend" }).click();
  const suspend = page.getByRole("dialog", { name: `Suspend "${name}"?` });
  await expect(suspend).toContainText("Every key of the account answers 401 within 5 seconds");
  await suspend.getByRole("button", { name: "Suspend account" }).click();
  await expect(page.getByText(`"${name}" was suspended.`)).toBeVisible();
  expect(
    await statusWithin5s(request, secret, 401),
    "the suspended account's key is refused within 5 s",
  ).toBe(401);
  await expect(page.getByRole("heading", { level: 1, name })).toContainText("Suspended");
  await expect(page.getByText("This account is suspended")).toBeVisible();

  await page.getByRole("button", { name: "Resume" }).click();
  await page
    .getByRole("dialog", { name: `Resume "${name}"?` })
    .getByRole("button", { name: "Resume account" })
    .click();
  await expect(page.getByText(`"${name}" was resumed.`)).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name })).toContainText("Active");
  expect(await statusWithin5s(request, secret, 200), "the resumed account's key works within 5 s").toBe(200);

  await keys.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/admin\/keys\/[0-9a-f-]{36}$/);
  await page.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();

  // Its audit entries, by name: creation, plan change, suspension, resumption.
  await page.getByRole("link", { name: "Audit log of this account →" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  for (const action of ["account.create", "account.setPlan", "account.suspend", "account.resume"])
    await expect(page.getByRole("row").filter({ hasText: action }).filter({ hasText: name })).toHaveCount(1);

  // On a phone the account's page fits the screen and stays accessible.
  await page.goBack();
  await page.setViewportSize(VIEWPORTS[1]);
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expectNoHorizontalOverflow(page);
  await expectAccessible(page, "an account's page on a phone");
  await snap(page, testInfo, "account-detail");
});

test("own limits before Enterprise; the account's usage and request log", async ({
  page,
  request,
}, testInfo) => {
  await openSignedIn(page, e2e.admin);
  const name = unique("Limits Co");
  const created = await page.request.post("/api/trpc/accounts.create", {
    data: { name, plan: "pro", ownerEmail: `limits-${Date.now().toString(36)}@acme.example` },
  });
  expect(created.status()).toBe(200);
  const { id, invitationUrl } = (await created.json()).result.data as { id: string; invitationUrl: string };
  const secret = await ownerKey(request, invitationUrl, unique("Limits key"));
  const requestId = `e2e-admin-log-${Date.now().toString(36)}`;
  const call = await request.get("/v1/pets?limit=2", {
    headers: { Authorization: `Bearer ${secret}`, "X-Request-Id": requestId },
  });
  expect(call.status()).toBe(200);

  await page.goto(`/admin/accounts/${id}`);
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  // Without its own limits the account cannot move to Enterprise: the server's refusal, with the hint.
  await page.getByRole("combobox", { name: "Change plan" }).click();
  await page.getByRole("option", { name: "Enterprise" }).click();
  const planDialog = page.getByRole("dialog", { name: `Move "${name}" to the Enterprise plan?` });
  await planDialog.getByRole("button", { name: "Change to Enterprise" }).click();
  await expect(page.getByText("Could not change the plan: set the account's own limits first")).toBeVisible();
  await expect(
    page.getByText(/Enterprise has no plan-wide limits: set the account's own limits first/),
  ).toBeVisible();
  await planDialog.getByRole("button", { name: "Cancel" }).click();

  const limits = page.getByRole("form", { name: "Own limits" });
  await limits.getByRole("textbox", { name: "Requests per minute" }).fill("120");
  await limits.getByRole("textbox", { name: "Requests per day" }).fill("50000");
  await limits.getByRole("button", { name: "Save limits" }).click();
  await expect(page.getByText(`"${name}" has its own limits: 120/min, 50,000/day.`)).toBeVisible();
  await expect(limits).toContainText("(its own)");

  await page.getByRole("combobox", { name: "Change plan" }).click();
  await page.getByRole("option", { name: "Enterprise" }).click();
  await page
    .getByRole("dialog", { name: `Move "${name}" to the Enterprise plan?` })
    .getByRole("button", { name: "Change to Enterprise" })
    .click();
  await expect(page.getByText(`"${name}" is now on the Enterprise plan.`)).toBeVisible();
  await expect(page.getByRole("region", { name: "Limits", exact: true })).toContainText("50,000");

  // The request shows in the account's request log, found by its X-Request-Id (the e2e server writes the log every second).
  const log = page.getByRole("region", { name: "Request log table" });
  await page.getByRole("textbox", { name: "Find by X-Request-Id" }).fill(requestId);
  await page.getByRole("button", { name: "Find", exact: true }).click();
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(log.getByRole("row").filter({ hasText: requestId })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(log.getByRole("row").filter({ hasText: requestId })).toContainText("GET /v1/pets?limit=2");
  await expect(page.getByRole("region", { name: "Requests per key table" })).toBeVisible();
  await expectAccessible(page, "an account's page with its limits, usage and request log");
  await snap(page, testInfo, "account-limits-usage");
});

test("an account address no account has is the dashboard's 404", async ({ page }) => {
  await openSignedIn(page, e2e.admin, null);
  for (const path of [`/admin/accounts/${crypto.randomUUID()}`, "/admin/accounts/not-an-account"]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(page.getByText(/^Could not load/)).toHaveCount(0);
  }
});
