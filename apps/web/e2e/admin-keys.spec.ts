/**
 * An admin issues an API key in the dashboard, reads its secret once, uses it against the REST API, then
 * revokes it in the UI and sees the same call refused within 5 seconds. Rolling a key links the old and the
 * new key's pages (docs/contract.md section 2, "Roll"), and a key already rolled offers no second roll. A key
 * issued with fewer scopes is refused what they leave out, and its page changes them (section 2, "Scopes"). A key
 * marked as leaked is revoked and shown as leaked (section 2, "Leaked keys").
 */

import { expect, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { expectAccessible, openSignedIn, restGet, snap, unique } from "./support/helpers";

test("issue a key, use it, revoke it: the API refuses it within 5 s", async ({ page, request }, testInfo) => {
  await openSignedIn(page, e2e.admin);
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "API keys" })
    .click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();

  const name = unique("Partner shop");
  await page.getByRole("button", { name: "Issue key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Issue an API key" });
  // The form validates like the API does.
  await dialog.getByRole("button", { name: "Issue key" }).click();
  await expect(dialog.getByText("This cannot be empty.")).toBeVisible();
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole("combobox", { name: "Plan" }).click();
  await page.getByRole("option", { name: "Pro" }).click();
  await dialog.getByRole("button", { name: "Issue key" }).click();

  const secretDialog = page.getByRole("dialog", { name: "Your new API key" });
  await expect(secretDialog.getByText("This is the only time the full key is shown")).toBeVisible();
  const secret = await secretDialog.getByLabel("New API key").inputValue();
  expect(secret).toMatch(/^pet_test_[0-9A-Za-z]{38}$/);
  await expect(secretDialog.getByRole("button", { name: "Copy key" })).toBeVisible();
  await snap(page, testInfo, "keys-secret-once");
  await secretDialog.getByRole("button", { name: "I have stored the key" }).click();

  // The secret is never shown again: not in the list, not on the key's page.
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText(secret.slice(0, 12));
  await expect(row).toContainText("active");
  await expect(page.locator("body")).not.toContainText(secret);

  const allowed = await restGet(request, "/v1/pets?limit=5", secret);
  expect(allowed.status()).toBe(200);
  expect(Array.isArray(await allowed.json())).toBe(true);

  await row.getByRole("button", { name: /^Actions for/ }).click();
  // The open menu's red "Revoke…" is readable (4.5:1). Only contrast: Mantine's menu puts a focus target
  // (role=presentation with a tabindex) among the items, which axe's aria-required-children rule reports.
  await expect(page.getByRole("menuitem", { name: "Revoke…" })).toBeVisible();
  await expectAccessible(page, "key actions menu", ["color-contrast"]);
  await page.getByRole("menuitem", { name: "Revoke…" }).click();
  const confirm = page.getByRole("dialog", { name: `Revoke "${name}"?` });
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByText(`${secret.slice(0, 12)}… was revoked.`)).toBeVisible();
  const revokedAt = Date.now();
  let status = 0;
  while (Date.now() - revokedAt < 5_000) {
    status = (await restGet(request, "/v1/pets?limit=5", secret)).status();
    if (status === 401) break;
    await page.waitForTimeout(250);
  }
  expect(status, "the revoked key is refused within 5 s").toBe(401);
  await expect(row).toContainText("revoked");
  await snap(page, testInfo, "keys-list");

  // The key's own page, with its 30-day charts.
  await row.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { name: "Last 30 days", exact: true })).toBeVisible();
  for (const chart of ["Requests", "Rate-limited (429)", "Bans", "Deprecated getPet calls"]) {
    await expect(page.getByRole("region", { name: `${chart}, last 30 days`, exact: true })).toBeVisible();
  }
  await expect(page.locator("body")).not.toContainText(secret);
  await snap(page, testInfo, "key-detail");
});

test("roll a key: the old and the new key's pages link each other, and the old key cannot be rolled again", async ({
  page,
}, testInfo) => {
  await openSignedIn(page, e2e.admin, null);
  const name = unique("Rolling shop");
  const created = await page.request.post("/api/trpc/apiKeys.create", { data: { name, plan: "free" } });
  expect(created.status()).toBe(200);
  const old = (await created.json()).result.data as { id: string; prefix: string };
  await page.goto(`/admin/keys/${old.id}`);
  await expect(page.getByRole("heading", { name })).toBeVisible();

  await page.getByRole("button", { name: /^Actions for/ }).click();
  await page.getByRole("menuitem", { name: "Roll key…" }).click();
  await page
    .getByRole("dialog", { name: `Roll "${name}"` })
    .getByRole("button", { name: "Roll key" })
    .click();
  const secretDialog = page.getByRole("dialog", { name: "Your new API key" });
  const secret = await secretDialog.getByLabel("New API key").inputValue();
  await secretDialog.getByRole("button", { name: "I have stored the key" }).click();
  const newPrefix = secret.slice(0, 12);

  // The old key's page links its successor; the successor's page links back.
  const rolledTo = page.getByRole("link", { name: `${newPrefix}…` });
  await expect(rolledTo).toBeVisible();
  await expectAccessible(page, "key page with its lineage");
  await snap(page, testInfo, "key-rolled");
  await rolledTo.click();
  await expect(page).toHaveURL(/\/admin\/keys\/[0-9a-f-]{36}$/);
  await expect(page.getByText(`${newPrefix}…`).first()).toBeVisible();
  await page.getByRole("link", { name: `${old.prefix}…` }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/keys/${old.id}$`));

  // A key in its grace period offers no second roll.
  await page.getByRole("button", { name: /^Actions for/ }).click();
  await expect(page.getByRole("menuitem", { name: "Change plan…" })).toBeVisible();
  await expect(page.getByRole("menuitem", { name: "Roll key…" })).toHaveCount(0);
});

test("issue a read-only key, see the API refuse it creation, then give it pets:write on its page", async ({
  page,
  request,
}, testInfo) => {
  await openSignedIn(page, e2e.admin, "/admin/keys");
  const name = unique("Shop window");
  await page.getByRole("button", { name: "Issue key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Issue an API key" });
  await dialog.getByLabel(/^Name/).fill(name);
  // Every scope is ticked by default; at least one must stay.
  const read = dialog.getByRole("checkbox", { name: "pets:read" });
  for (const scope of ["pets:read", "pets:write", "orders:read", "orders:write"]) {
    await expect(dialog.getByRole("checkbox", { name: scope })).toBeChecked();
    await dialog.getByRole("checkbox", { name: scope }).uncheck();
  }
  await dialog.getByRole("button", { name: "Issue key" }).click();
  await expect(dialog.getByText("Choose at least one.")).toBeVisible();
  await read.check();
  await snap(page, testInfo, "keys-issue-scopes");
  await dialog.getByRole("button", { name: "Issue key" }).click();
  const secretDialog = page.getByRole("dialog", { name: "Your new API key" });
  const secret = await secretDialog.getByLabel("New API key").inputValue();
  await secretDialog.getByRole("button", { name: "I have stored the key" }).click();

  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("only pets:read");
  const categories = await page.request.get("/api/trpc/categories.list");
  const categoryId = Number(((await categories.json()).result.data as { id: number | string }[])[0]?.id);
  const createPet = () =>
    request.post("/v1/pets", {
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
      data: { name: "Window display", categoryId },
    });
  expect((await restGet(request, "/v1/pets?limit=1", secret)).status()).toBe(200);
  const refused = await createPet();
  expect(refused.status()).toBe(403);
  expect(refused.headers()["www-authenticate"]).toBe(
    'Bearer realm="petstore", error="insufficient_scope", scope="pets:write"',
  );
  expect((await refused.json()).code).toBe("insufficient_scope");

  // On the key's page: the scopes shown, and changed.
  await row.getByRole("link", { name }).click();
  await expect(page.getByText("pets:read", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: /^Actions for/ }).click();
  await page.getByRole("menuitem", { name: "Change scopes…" }).click();
  const change = page.getByRole("dialog", { name: `Change the scopes of "${name}"` });
  await change.getByRole("checkbox", { name: "pets:write" }).check();
  await expectAccessible(page, "change scopes dialog");
  await change.getByRole("button", { name: "Save scopes" }).click();
  await expect(page.getByText(`"${name}" now has the scopes pets:read, pets:write.`)).toBeVisible();
  await expect(page.getByText("pets:write", { exact: true })).toBeVisible();
  await snap(page, testInfo, "key-scopes");
  expect((await createPet()).status()).toBe(201);
});

test("mark a key as leaked on its page: it is revoked, and the page and the list say it leaked", async ({
  page,
  request,
}) => {
  await openSignedIn(page, e2e.admin, null);
  const name = unique("Leaked till");
  const created = await page.request.post("/api/trpc/apiKeys.create", { data: { name, plan: "free" } });
  const key = (await created.json()).result.data as { id: string; key: string; prefix: string };
  await page.goto(`/admin/keys/${key.id}`);
  await expect(page.getByRole("heading", { name })).toBeVisible();

  await page.getByRole("button", { name: /^Actions for/ }).click();
  await page.getByRole("menuitem", { name: "Mark as leaked…" }).click();
  const confirm = page.getByRole("dialog", { name: `Mark "${name}" as leaked?` });
  await expectAccessible(page, "mark as leaked dialog");
  await confirm.getByRole("button", { name: "Mark as leaked" }).click();
  await expect(page.getByText(`${key.prefix}… was marked as leaked and revoked.`)).toBeVisible();
  await expect(page.getByRole("heading", { name })).toContainText("Leaked");
  await expect(page.getByText("marked in the dashboard")).toBeVisible();
  expect((await restGet(request, "/v1/pets?limit=1", key.key)).status()).toBe(401);

  await page.goto(`/admin/keys?q=${encodeURIComponent(name)}`);
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("leaked");
});
