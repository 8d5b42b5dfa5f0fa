/**
 * A key's IP allowlist in the developer portal (docs/contract.md section 2, "IP allowlists"): the owner limits a key
 * to a range its calls do not come from, the API refuses them with 403 `ip_not_allowed`, a bad entry is named in
 * the field, and a list with the loopback address lets the calls through again. The key page passes axe.
 */
import { expect, type Page, test } from "@playwright/test";
import { expectAccessible, restGet, unique } from "./support/helpers";
import { acceptInvitation, createAccount, createKey } from "./support/portal";

/** Saves `text` as the allowlist of the key whose page is open. */
async function saveAllowlist(page: Page, keyName: string, text: string) {
  await page.getByRole("button", { name: `IP allowlist of ${keyName}` }).click();
  const dialog = page.getByRole("dialog", { name: `IP allowlist of "${keyName}"` });
  await dialog.getByLabel("Addresses and CIDR ranges").fill(text);
  await dialog.getByRole("button", { name: "Save allowlist" }).click();
  return dialog;
}

test("an owner limits a key to addresses, and calls from elsewhere are refused", async ({
  page,
  browser,
  request,
}) => {
  const { invitationUrl } = await createAccount(
    browser,
    unique("Fence Pets"),
    `fence-${Date.now().toString(36)}@example.com`,
  );
  await acceptInvitation(page, invitationUrl, "Fay Fencer");
  const keyName = unique("Backend");
  const secret = await createKey(page, keyName);
  expect((await restGet(request, "/v1/pets?limit=1", secret)).status()).toBe(200);

  await page.getByRole("row").filter({ hasText: keyName }).getByRole("link", { name: keyName }).click();
  await expect(page.getByRole("heading", { name: keyName, level: 1 })).toBeVisible();
  await expect(page.getByText("Any address")).toBeVisible();

  // A typo is named in the field, and nothing is saved.
  const dialog = await saveAllowlist(page, keyName, "192.0.2.0/24\n10.0.0.300");
  await expect(dialog.getByText('"10.0.0.300" is not an IPv4 or IPv6 address or CIDR range')).toBeVisible();
  await page.mouse.move(0, 0); // off the submit button, whose hover colour is not its own
  await expectAccessible(page, "the allowlist dialog");
  await dialog.getByLabel("Addresses and CIDR ranges").fill("192.0.2.77/24, 2001:db8::/32");
  await dialog.getByRole("button", { name: "Save allowlist" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("192.0.2.0/24, 2001:db8::/32", { exact: true })).toBeVisible();

  // Every server applies the change within 5 s, and the one that made it at once: the call from the loopback
  // address is refused right away.
  const refused = await restGet(request, "/v1/pets?limit=1", secret);
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { code: string }).code).toBe("ip_not_allowed");

  await saveAllowlist(page, keyName, "127.0.0.1 ::1");
  await expect(page.getByText("127.0.0.1, ::1", { exact: true })).toBeVisible();
  expect((await restGet(request, "/v1/pets?limit=1", secret)).status()).toBe(200);
  await expectAccessible(page, "the portal's key page with an allowlist");
});
