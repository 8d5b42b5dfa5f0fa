/**
 * The API reference at /docs (docs/contract.md section 1, "Documentation"): it starts on this deployment, the
 * document's first server, so "Try it out" with a pasted key calls this server; and the key is kept only while
 * the page is open, never in the browser's storage.
 */
import { expect, test } from "@playwright/test";
import { e2e, readState } from "./support/accounts";

test("/docs starts on this server and keeps a pasted key out of the browser's storage", async ({ page }) => {
  const key = readState().checkerKey;
  await page.goto("/docs");
  const servers = page.locator(".servers select");
  await expect(servers).toHaveValue(`${e2e.baseUrl}/v1`);
  await expect(servers.locator("option").first()).toHaveText(/This server/);

  await page.locator("button.authorize").first().click();
  const authorizations = page.locator(".modal-ux");
  await authorizations.getByRole("textbox", { name: "auth-bearer-value" }).fill(key);
  await authorizations.getByRole("button", { name: "Apply credentials" }).click();
  await authorizations.getByRole("button", { name: "Close" }).click();

  const listPets = page.locator("#operations-pets-listPets");
  await listPets.locator(".opblock-summary").click();
  await listPets.getByRole("button", { name: "Try it out" }).click();
  const answer = page.waitForResponse((r) => r.url().startsWith(`${e2e.baseUrl}/v1/pets`));
  await listPets.getByRole("button", { name: "Execute" }).click();
  expect((await answer).status()).toBe(200);
  await expect(listPets.locator(".request-url pre")).toHaveText(new RegExp(`^${e2e.baseUrl}/v1/pets`));

  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
  expect(stored).not.toContain(key);
  expect(stored).not.toContain("bearerAuth");
  await page.reload();
  await expect(page.locator("button.authorize").first()).toHaveClass(/unlocked/);
});
