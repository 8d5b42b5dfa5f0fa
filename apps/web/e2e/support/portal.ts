/** Steps of the portal's tests: the admin's API, accepting an invitation, creating a key, signing out. */
import { type Browser, expect, type Page } from "@playwright/test";
import { e2e } from "./accounts";
import { openSignedIn } from "./helpers";

export const PASSWORD = "a portal password";

/** Calls the admin API's mutation `procedure` with `input` as the e2e admin. @returns its answer's data. */
export async function asAdmin<T>(browser: Browser, procedure: string, input: unknown): Promise<T> {
  const context = await browser.newContext({ baseURL: e2e.baseUrl });
  try {
    const admin = await context.newPage();
    await openSignedIn(admin, e2e.admin, null);
    const response = await admin.request.post(`/api/trpc/${procedure}`, { data: input });
    expect(response.status(), await response.text()).toBe(200);
    return ((await response.json()) as { result: { data: T } }).result.data;
  } finally {
    await context.close();
  }
}

/** A new account on `plan` created by the admin through the API: its id and its owner's invitation link. */
export const createAccount = (browser: Browser, name: string, ownerEmail: string, plan = "pro") =>
  asAdmin<{ id: string; invitationUrl: string }>(browser, "accounts.create", { name, plan, ownerEmail });

/** Accepts the invitation at `url` as `name` and waits for the portal's account page. */
export async function acceptInvitation(page: Page, url: string, name: string) {
  await page.goto(url);
  await page.getByLabel(/^Your name/).fill(name);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Accept and sign in" }).click();
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
}

/** Creates a key named `name` in the portal. @returns its secret, read from the dialog that shows it once. */
export async function createKey(page: Page, name: string): Promise<string> {
  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog", { name: "Create an API key" });
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole("button", { name: "Create key" }).click();
  const secretDialog = page.getByRole("dialog", { name: "Your new API key" });
  await expect(secretDialog.getByText("This is the only time the full key is shown")).toBeVisible();
  await expect(secretDialog.getByRole("button", { name: "Copy key" })).toBeVisible();
  const secret = await secretDialog.getByLabel("New API key").inputValue();
  expect(secret).toMatch(/^pet_test_[0-9A-Za-z]{38}$/);
  await secretDialog.getByRole("button", { name: "I have stored the key" }).click();
  await expect(secretDialog).toBeHidden();
  return secret;
}

/** Signs out with the portal header's button (repeated until the page moves, as signOut in helpers.ts explains). */
export async function signOutOfPortal(page: Page) {
  await expect(async () => {
    if (!/\/portal\/sign-in$/.test(page.url()))
      await page.getByRole("button", { name: "Sign out" }).click({ timeout: 2_000 });
    await expect(page).toHaveURL(/\/portal\/sign-in$/, { timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
}
