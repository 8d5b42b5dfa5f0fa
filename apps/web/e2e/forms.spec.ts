/**
 * Forms never change what was typed (docs/contract.md section 4): number fields keep negative, zero,
 * fractional and huge values and say in plain words what is wrong; nothing is saved; no schema wording
 * reaches the page; text fields accept exactly the schema's length; switching a key to Enterprise starts
 * from its current limits; changing a plan's limits asks first, naming how many keys it affects.
 */
import { expect, type Locator, type Page, test } from "@playwright/test";
import { e2e } from "./support/accounts";
import { openSignedIn, snap, unique } from "./support/helpers";

/** Raw zod wording that must never reach a person. */
const SCHEMA_WORDS = /Too big:|Too small:|Invalid input|expected (number|int|string)|<=|>=/;

async function expectNoSchemaWords(scope: Locator | Page) {
  const text = await ("locator" in scope ? scope.locator("body") : scope).innerText();
  expect(text).not.toMatch(SCHEMA_WORDS);
}

async function openIssueDialog(page: Page) {
  await page.goto("/admin/keys");
  await page.getByRole("button", { name: "Issue key" }).first().click();
  return page.getByRole("dialog", { name: "Issue an API key" });
}

async function chooseEnterprise(page: Page, dialog: Locator) {
  await dialog.getByRole("combobox", { name: "Plan" }).click();
  await page.getByRole("option", { name: "Enterprise (custom limits)" }).click();
}

test("Enterprise limits keep what was typed and are explained; no key is issued", async ({
  page,
}, testInfo) => {
  await openSignedIn(page, e2e.admin, null);
  const name = unique("Typed limits");
  const dialog = await openIssueDialog(page);
  await dialog.getByLabel(/^Name/).fill(name);
  await chooseEnterprise(page, dialog);
  const perMinute = dialog.getByLabel(/^Requests per minute/);
  const perDay = dialog.getByLabel(/^Requests per day/);

  for (const [minute, day] of [
    ["-5", "-10"],
    ["0", "0"],
  ] as const) {
    await perMinute.fill(minute);
    await perDay.fill(day);
    await perDay.blur();
    await dialog.getByRole("button", { name: "Issue key" }).click();
    await expect(perMinute).toHaveValue(minute);
    await expect(perDay).toHaveValue(day);
    await expect(dialog.getByText("Enter a number of at least 1.")).toHaveCount(2);
    await expect(page.getByRole("dialog", { name: "Your new API key" })).toHaveCount(0);
  }

  await perMinute.fill("1.5");
  await perDay.fill("100000000000000000000000");
  await perDay.blur();
  await dialog.getByRole("button", { name: "Issue key" }).click();
  await expect(perMinute).toHaveValue("1.5");
  await expect(dialog.getByText("Enter a whole number, without decimals.")).toBeVisible();
  await expect(dialog.getByText("Enter a number no larger than 100,000,000.")).toBeVisible();
  await expect(perDay).toHaveValue("100,000,000,000,000,000,000,000");
  await expectNoSchemaWords(page);
  await snap(page, testInfo, "issue-key-bad-limits");

  await perMinute.fill("");
  await dialog.getByRole("button", { name: "Issue key" }).click();
  await expect(dialog.getByText("Enterprise keys need custom per-minute and per-day limits.")).toBeVisible();
  await expectNoSchemaWords(page);

  // Nothing was issued under that name.
  await page.keyboard.press("Escape");
  await page.goto(`/admin/keys?q=${encodeURIComponent(name)}`);
  await expect(page.getByText("No keys match")).toBeVisible();
});

test("text fields take exactly the schema's length and never show schema wording", async ({ page }) => {
  await openSignedIn(page, e2e.admin, null);
  const dialog = await openIssueDialog(page);
  const keyName = dialog.getByLabel(/^Name/);
  await keyName.fill("k".repeat(10_000));
  expect((await keyName.inputValue()).length).toBe(100);
  await page.keyboard.press("Escape");

  await page.goto("/admin/categories");
  const category = page.getByLabel("New category");
  await category.fill("c".repeat(80));
  expect((await category.inputValue()).length).toBe(60);

  await page.goto("/admin/animals");
  await page.getByRole("button", { name: "New animal" }).click();
  const animal = page.getByRole("dialog", { name: "New animal" }).getByLabel(/^Name/);
  await animal.fill("a".repeat(120));
  expect((await animal.inputValue()).length).toBe(100);
  await page.getByRole("dialog", { name: "New animal" }).getByRole("button", { name: "Add animal" }).click();
  await expect(page.getByText("Choose a category.")).toBeVisible();
  await expectNoSchemaWords(page);
});

test("plan limits keep what was typed, and a change asks first with the number of keys", async ({
  page,
}, testInfo) => {
  await openSignedIn(page, e2e.admin, "/admin/plans");
  const pro = page.getByRole("form", { name: "Pro" });
  const perMinute = pro.getByLabel(/^Requests per minute/);
  const perDay = pro.getByLabel(/^Requests per day/);

  await perMinute.fill("-7");
  await perMinute.blur();
  await expect(perMinute).toHaveValue("-7");
  await pro.getByRole("button", { name: "Save Pro" }).click();
  await expect(pro.getByText("Enter a number of at least 1.")).toBeVisible();
  await perMinute.fill("0");
  await perMinute.blur();
  await expect(perMinute).toHaveValue("0");
  await perDay.fill("");
  await pro.getByRole("button", { name: "Save Pro" }).click();
  await expect(pro.getByText("Enter a number.")).toBeVisible();
  await expect(pro.getByText("Enter a number of at least 1.")).toBeVisible();
  await expectNoSchemaWords(page);
  await page.reload();
  await expect(page.getByRole("form", { name: "Pro" }).getByLabel(/^Requests per minute/)).toHaveValue("300");

  // A real change asks first, saying how many working keys take the Pro limits. Other tests issue, move and revoke
  // Pro keys meanwhile, so the number is checked on an opening of the dialog during which the count held still.
  const proKeys = async (): Promise<number> => {
    const input = encodeURIComponent(JSON.stringify({ plan: "pro" }));
    const body = await page.request.get(`/api/trpc/plans.affectedKeys?input=${input}`).then((r) => r.json());
    return body.result.data.keys;
  };
  const card = page.getByRole("form", { name: "Pro" });
  await card.getByLabel(/^Requests per minute/).fill("301");
  const confirm = page.getByRole("dialog", { name: "Change the Pro plan's limits?" });
  await expect(async () => {
    const before = await proKeys();
    await card.getByRole("button", { name: "Save Pro" }).click();
    await expect(confirm).toContainText(/\d+ working keys? on the Pro plan/);
    const shown = Number(
      /(\d+) working keys? on the Pro plan/.exec((await confirm.textContent()) ?? "")?.[1],
    );
    const after = await proKeys();
    if (after !== before || shown !== before) {
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await expect(confirm).toBeHidden();
    }
    expect(after, "Pro keys changed while the dialog opened").toBe(before);
    expect(shown).toBe(before);
  }).toPass({ timeout: 60_000 });
  await snap(page, testInfo, "plans-confirm");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await page.reload();
  await expect(page.getByRole("form", { name: "Pro" }).getByLabel(/^Requests per minute/)).toHaveValue("300");
});

test("switching a key to Enterprise starts from its current limits", async ({ page }) => {
  await openSignedIn(page, e2e.admin, null);
  const name = unique("To enterprise");
  const dialog = await openIssueDialog(page);
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole("combobox", { name: "Plan" }).click();
  await page.getByRole("option", { name: "Business" }).click();
  await dialog.getByRole("button", { name: "Issue key" }).click();
  await page.getByRole("button", { name: "I have stored the key" }).click();

  await page.goto(`/admin/keys?q=${encodeURIComponent(name)}`);
  const row = page.getByRole("row").filter({ hasText: name });
  await row.getByRole("button", { name: /^Actions for/ }).click();
  await page.getByRole("menuitem", { name: "Change plan…" }).click();
  const change = page.getByRole("dialog", { name: `Change the plan of "${name}"` });
  await chooseEnterprise(page, change);
  await expect(change.getByLabel(/^Requests per minute/)).toHaveValue("1,000");
  await expect(change.getByLabel(/^Requests per day/)).toHaveValue("100,000");
  await change.getByRole("button", { name: "Save plan" }).click();
  await expect(page.getByText(`"${name}" is now on the Enterprise plan.`)).toBeVisible();
});
