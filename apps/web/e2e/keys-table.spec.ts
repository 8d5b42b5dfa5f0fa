/**
 * The keys table as admins use it: its headers sort on the server (`aria-sort`, the order in the URL), it and the
 * other admin lists fit a 1440x900 screen without sideways scrolling, a phone card is a few lines, its filtered
 * view downloads as CSV, it links the getPet callers with whom to contact, and a key's figures read the same in
 * the list and on its page (docs/contract.md section 4).
 */
import fs from "node:fs";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import Papa from "papaparse";
import { e2e } from "./support/accounts";
import { expectAccessible, openSignedIn, restGet, unique } from "./support/helpers";

const settle = (page: Page) => expect(page.locator("[aria-busy=true]")).toHaveCount(0);

/** Issues a key named `name` through the dashboard's API (signed in as the page's admin). @returns its secret. */
async function issueKey(request: APIRequestContext, name: string): Promise<string> {
  const created = await request.post("/api/trpc/apiKeys.create", { data: { name, plan: "free" } });
  expect(created.status()).toBe(200);
  const secret = (await created.json()).result.data.key;
  expect(secret).toMatch(/^pet_test_/);
  return secret as string;
}

test.describe("desktop 1440x900", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("the keys list sorts by its column headers on the server, with aria-sort, in the URL", async ({
    page,
    request,
  }) => {
    await openSignedIn(page, e2e.admin, null);
    const tag = unique("Sorter");
    await issueKey(page.request, `${tag} quiet`);
    const busy = await issueKey(page.request, `${tag} busy`);
    for (let i = 0; i < 3; i++) expect((await restGet(request, "/v1/pets?limit=1", busy)).status()).toBe(200);
    await page.goto(`/admin/keys?q=${encodeURIComponent(tag)}`);
    const header = (name: string) => page.getByRole("columnheader", { name: new RegExp(`^${name}`) });
    const names = async () => {
      await settle(page);
      return page
        .getByRole("region", { name: "API keys table" })
        .locator("tbody tr td:first-child a")
        .allTextContents();
    };

    // Newest first by default: the busy key was issued last.
    await expect(header("Created")).toHaveAttribute("aria-sort", "descending");
    await expect(header("Today")).toHaveAttribute("aria-sort", "none");
    expect(await names()).toEqual([`${tag} busy`, `${tag} quiet`]);

    await page.getByRole("button", { name: /^Last used/ }).click();
    await expect(page).toHaveURL(/[?&]sort=lastUsed(&|$)/);
    await expect(header("Last used")).toHaveAttribute("aria-sort", "descending");
    await expect(header("Created")).toHaveAttribute("aria-sort", "none");
    expect(await names()).toEqual([`${tag} busy`, `${tag} quiet`]);

    // A reload keeps the order; the figures' header sorts most first.
    await page.getByRole("button", { name: /^Today/ }).click();
    await expect(page).toHaveURL(/[?&]sort=requestsToday(&|$)/);
    await page.reload();
    await expect(header("Today")).toHaveAttribute("aria-sort", "descending");
    const busyRow = page.getByRole("row").filter({ hasText: `${tag} busy` });
    await expect(busyRow.getByRole("cell").nth(5)).toHaveText("3");
    expect(await names()).toEqual([`${tag} busy`, `${tag} quiet`]);
    await expectAccessible(page, "keys sorted by a header");
  });

  test("the admin lists show their deciding columns without sideways scrolling", async ({ page }) => {
    await openSignedIn(page, e2e.admin, null);
    for (const [path, table, last] of [
      ["/admin/keys", "API keys table", /^Bans, 30 days/],
      ["/admin/accounts", "Accounts table", null],
      ["/admin/users", "Users table", null],
      ["/admin/orders", "Orders table", null],
      ["/admin/audit", "Audit log table", null],
      ["/admin/webhooks", "Webhook endpoints table", null],
    ] as const) {
      await page.goto(path);
      const region = page.getByRole("region", { name: table });
      // A list that is empty in this run (no orders or endpoints yet) has no table to measure.
      await expect(
        region.or(page.getByText(/^No (orders yet|webhook endpoints|accounts)/)).first(),
        path,
      ).toBeVisible();
      if ((await region.count()) === 0) continue;
      await settle(page);
      const overflow = await region.evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow, `${path}: the table scrolls sideways by (px)`).toBeLessThanOrEqual(0);
      if (last) await expect(page.getByRole("columnheader", { name: last })).toBeInViewport();
    }
    // The keys' actions and the part of a prefix that tells keys apart are on screen.
    await page.goto("/admin/keys");
    const first = page.getByRole("region", { name: "API keys table" }).locator("tbody tr").first();
    await expect(first.getByRole("button", { name: /^Actions for/ })).toBeInViewport();
    const prefix = first.locator("code").first();
    await expect(prefix).toHaveAttribute("title", /^pet_(test|live)_[0-9A-Za-z]{3}…$/);
    // Only the tail is drawn (the head is read to screen readers): a few characters wide.
    expect((await prefix.boundingBox())?.width ?? 0).toBeLessThan(60);
  });

  test("a key's figures read the same in the list, on its page and in the overview; its view downloads as CSV", async ({
    page,
    request,
  }) => {
    await openSignedIn(page, e2e.admin, null);
    const name = unique("Agreeing key");
    const secret = await issueKey(page.request, name);
    const [pet] = await (await restGet(request, "/v1/pets?limit=1", secret)).json();
    for (let i = 0; i < 2; i++)
      expect((await restGet(request, `/v1/pets/${pet.id}`, secret)).status()).toBe(200);

    await page.goto(`/admin/keys?q=${encodeURIComponent(name)}`);
    const row = page.getByRole("row").filter({ hasText: name });
    // Requests of 30 days (the getPet calls and the listing) and getPet calls of 30 days.
    await expect(row.getByRole("cell").nth(7)).toHaveText("3");
    await expect(row.getByRole("cell").nth(8)).toHaveText("2");

    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const csv = Papa.parse<string[]>(
      fs.readFileSync(String(await (await download).path()), "utf8").trim(),
    ).data;
    const header = csv[0] ?? [];
    expect(csv.slice(1).map((r) => r[header.indexOf("name")])).toEqual([name]);
    expect(csv[1]?.[header.indexOf("requests, 30 days")]).toBe("3");

    await row.getByRole("link", { name }).click();
    await expect(
      page.getByRole("img", {
        name: /^This key: requests, last 30 days \(UTC\)\. 3 requests reached the API and 0 were refused/,
      }),
    ).toBeVisible();
    await expect(
      page.getByRole("img", { name: /^Deprecated getPet calls per day for the last 30 days, 2 in total/ }),
    ).toBeVisible();

    // The overview's getPet figure is its chart's: the calls that reached the API, 429s apart.
    await page.goto("/admin");
    const figure = await page.locator("[data-figure=getPet-calls]").innerText();
    await page.getByRole("button", { name: "Show the traffic numbers as tables" }).click();
    const getPet = page.getByRole("table", { name: "Requests by operation and outcome" }).getByRole("row", {
      name: /^getPet \(deprecated\)/,
    });
    await expect(getPet.getByRole("cell").nth(1)).toHaveText(figure);
  });

  test("the keys page links the getPet callers, which name whom to contact", async ({ page }) => {
    await openSignedIn(page, e2e.admin, "/admin/keys");
    await page.getByRole("link", { name: /^Keys calling the deprecated getPet/ }).click();
    await expect(page).toHaveURL(/\/admin\/keys\/deprecated-calls$/);
    await expect(page.getByRole("columnheader", { name: "Contact" })).toBeVisible();
  });
});

test.describe("phone 390x844", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("a key card is a few lines: its name and actions, the key, its last use and its figures", async ({
    page,
  }) => {
    await openSignedIn(page, e2e.admin, null);
    await issueKey(page.request, unique("Pocket key"));
    await page.goto("/admin/keys");
    const card = page.getByRole("list", { name: "API keys table" }).getByRole("listitem").first();
    await expect(card).toBeVisible();
    await expect(card.locator("dt")).toHaveCount(4);
    const box = await card.boundingBox();
    expect(box?.height ?? 0, "a card's height (px)").toBeLessThanOrEqual(190);
    await expect(page.getByRole("combobox", { name: "Sort by" })).toBeVisible();
  });
});
