/**
 * Staff change an animal's status in its row (a held animal keeps its status, and the notice names the order),
 * change every animal a filter matches across pages and undo it, and download the filtered view as CSV; the REST
 * API follows each change.
 */
import { readFile } from "node:fs/promises";
import { type APIRequestContext, expect, test } from "@playwright/test";
import Papa from "papaparse";
import { e2e, readState } from "./support/accounts";
import { expectAccessible, openSignedIn, restGet, unique } from "./support/helpers";
import { asAdmin } from "./support/portal";

/** Creates `count` available animals `<tag> 00`, `<tag> 01`, ... over the REST API. @returns their ids, in order. */
async function createAnimals(request: APIRequestContext, tag: string, count: number): Promise<number[]> {
  const categoryId = readState().categories.dogs;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const created = await request.post("/v1/pets", {
      headers: { Authorization: `Bearer ${readState().checkerKey}` },
      data: { name: `${tag} ${String(i).padStart(2, "0")}`, categoryId, status: "available" },
    });
    expect(created.status()).toBe(201);
    ids.push(((await created.json()) as { id: number }).id);
  }
  return ids;
}

const statusOf = async (request: APIRequestContext, id: number) =>
  ((await (await restGet(request, `/v1/pets/${id}`)).json()) as { status?: string }).status;

test("a status changes in its row; a held animal keeps its status and the notice says which order holds it", async ({
  page,
  browser,
  request,
}) => {
  const tag = unique("Rowan");
  const [free, held] = await createAnimals(request, tag, 2);
  const issued = await asAdmin<{ key: string }>(browser, "apiKeys.create", {
    name: unique("Row e2e"),
    plan: "pro",
  });
  const order = await request.post("/v1/store/orders", {
    headers: { Authorization: `Bearer ${issued.key}` },
    data: { petId: held },
  });
  expect(order.status()).toBe(201);
  const orderId = ((await order.json()) as { id: number }).id;

  await openSignedIn(page, e2e.staff, `/admin/animals?q=${encodeURIComponent(tag)}&sort=name`);
  await page.getByRole("button", { name: `Status of ${tag} 00: Available` }).click();
  await page.getByRole("menuitem", { name: "Sold" }).click();
  await expect(page.getByRole("alert").filter({ hasText: `${tag} 00 is now Sold.` })).toBeVisible();
  expect(await statusOf(request, free as number)).toBe("sold");
  await expect(page.getByRole("button", { name: `Status of ${tag} 00: Sold` })).toBeVisible();

  await page.getByRole("button", { name: `Status of ${tag} 01: Pending` }).click();
  await page.getByRole("menuitem", { name: "Available" }).click();
  const refusal = page.getByRole("alert").filter({ hasText: "Could not change the status" });
  await expect(refusal).toContainText(`is held by order ${orderId}: complete or cancel the order first.`);
  await expect(page.getByRole("button", { name: `Status of ${tag} 01: Pending` })).toBeVisible();
  expect(await statusOf(request, held as number)).toBe("pending");
  await expectAccessible(page, "animals with a status menu in each row");
});

test("every animal a filter matches changes at once across pages, and Undo puts each status back", async ({
  page,
  request,
}) => {
  const tag = unique("Flock");
  const ids = await createAnimals(request, tag, 23);
  await openSignedIn(page, e2e.staff, `/admin/animals?q=${encodeURIComponent(tag)}`);
  await expect(page.getByText("1–20 of 23")).toBeVisible();
  await page.getByRole("checkbox", { name: "Select all animals on this page" }).check();
  const bulk = page.getByRole("region", { name: "Bulk actions" });
  await expect(bulk).toContainText("20 selected");
  await bulk.getByRole("button", { name: "Select all 23 matching" }).click();
  await expect(bulk).toContainText("All 23 matching selected");
  await bulk.getByRole("combobox", { name: "Set status to" }).click();
  await page.getByRole("option", { name: "Sold" }).click();
  await bulk.getByRole("button", { name: "Apply to 23" }).click();
  await page
    .getByRole("dialog", { name: "Change the status of 23 animals?" })
    .getByRole("button", { name: "Set 23 animals to Sold" })
    .click();
  const notice = page.getByRole("alert").filter({ hasText: "Status of 23 animals set to Sold." });
  await expect(notice).toBeVisible();
  // The animals of the second page changed too.
  expect(await statusOf(request, ids[22] as number)).toBe("sold");
  expect(await statusOf(request, ids[0] as number)).toBe("sold");
  await notice.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByText("Status of 23 animals put back.")).toBeVisible();
  expect(await statusOf(request, ids[22] as number)).toBe("available");
  expect(await statusOf(request, ids[0] as number)).toBe("available");
});

test("the filtered view downloads as CSV, in the table's order", async ({ page, request }) => {
  const tag = unique("Herdbook");
  const ids = await createAnimals(request, tag, 3);
  await openSignedIn(page, e2e.staff, `/admin/animals?q=${encodeURIComponent(tag)}&sort=name&dir=desc`);
  await expect(page.getByText("1–3 of 3")).toBeVisible();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^animals-[\d-]+\.csv$/);
  const text = await readFile((await download.path()) as string, "utf8");
  const [header, ...rows] = Papa.parse<string[]>(text.trimEnd()).data;
  expect(header).toEqual([
    "id",
    "name",
    "category id",
    "category",
    "status",
    "created (UTC)",
    "updated (UTC)",
  ]);
  expect(rows.map((r) => [Number(r[0]), r[1], r[3], r[4]])).toEqual([
    [ids[2], `${tag} 02`, "dogs", "available"],
    [ids[1], `${tag} 01`, "dogs", "available"],
    [ids[0], `${tag} 00`, "dogs", "available"],
  ]);
});
