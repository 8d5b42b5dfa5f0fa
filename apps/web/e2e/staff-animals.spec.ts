/**
 * Staff create, edit, filter, change the status of and delete an animal in the dashboard, and see every
 * change through the public REST API.
 */
import { expect, test } from "@playwright/test";
import { e2e, readState } from "./support/accounts";
import { openSignedIn, restGet, snap, unique } from "./support/helpers";

test("staff manage an animal and the REST API follows", async ({ page, request }, testInfo) => {
  const { categories } = readState();
  await openSignedIn(page, e2e.staff);
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "Animals" })
    .click();
  await expect(page.getByRole("heading", { name: "Animals" })).toBeVisible();
  // The seed's 36 animals, and those other specs added before this one.
  await expect(page.getByText(/^1–20 of \d+$/)).toBeVisible();
  await snap(page, testInfo, "animals");

  // Create, after seeing the same validation message the API gives.
  const name = unique("Zephyr");
  await page.getByRole("button", { name: "New animal" }).click();
  const form = page.getByRole("dialog", { name: "New animal" });
  await form.getByLabel(/^Name/).fill("   ");
  await form.getByRole("combobox", { name: "Category" }).click();
  await page.getByRole("option", { name: "reptiles" }).click();
  await form.getByRole("button", { name: "Add animal" }).click();
  await expect(form.getByText("This cannot be empty.")).toBeVisible();
  await form.getByLabel(/^Name/).fill(name);
  await form.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "Pending" }).click();
  await form.getByRole("button", { name: "Add animal" }).click();
  await expect(page.getByText(`${name} was added.`)).toBeVisible();
  await expect(form).toBeHidden();

  // Search finds it; its id comes from the table.
  await page.getByLabel("Search by name").fill(name);
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("reptiles");
  await expect(row.getByRole("button", { name: `Status of ${name}: Pending` })).toBeVisible();
  const id = Number(await row.getByRole("cell").nth(1).textContent());
  expect(id).toBeGreaterThan(36);

  const created = await restGet(request, `/v1/pets/${id}`);
  expect(created.status()).toBe(200);
  expect(await created.json()).toEqual({ id, name, categoryId: categories.reptiles, status: "pending" });

  // Edit name, category and status.
  await row.getByRole("button", { name: `Edit ${name}` }).click();
  const edit = page.getByRole("dialog", { name: `Edit ${name}` });
  await edit.getByLabel(/^Name/).fill(`${name} II`);
  await edit.getByRole("combobox", { name: "Category" }).click();
  await page.getByRole("option", { name: "dogs" }).click();
  await edit.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "Sold" }).click();
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText(`${name} II was saved.`)).toBeVisible();
  const edited = await restGet(request, `/v1/pets/${id}`);
  expect(await edited.json()).toEqual({
    id,
    name: `${name} II`,
    categoryId: categories.dogs,
    status: "sold",
  });

  // Filters: by status and category, on the server.
  await page.getByLabel("Search by name").fill("");
  await page.getByRole("combobox", { name: "Status", exact: true }).click();
  await page.getByRole("option", { name: "Sold" }).click();
  await page.getByRole("combobox", { name: "Category" }).click();
  await page.getByRole("option", { name: "dogs" }).click();
  await expect(page.getByRole("row").filter({ hasText: `${name} II` })).toHaveCount(1);
  // Every row's status reads Sold.
  await expect(page.getByRole("table").getByRole("button", { name: /^Status of .*: (?!Sold$)/ })).toHaveCount(
    0,
  );
  const sold = await restGet(request, "/v1/pets?status=sold&limit=100");
  expect((await sold.json()).map((p: { id: number }) => p.id)).toContain(id);
  await snap(page, testInfo, "animals-filtered");

  // Bulk status change of the selected rows.
  const editedRow = page.getByRole("row").filter({ hasText: `${name} II` });
  const tint = () => editedRow.evaluate((row) => getComputedStyle(row).backgroundColor);
  // Read with the pointer off the rows: hovering tints a row too.
  await page.mouse.move(0, 0);
  const unselected = await tint();
  await editedRow.getByRole("checkbox").check();
  const bulk = page.getByRole("region", { name: "Bulk actions" });
  await expect(bulk).toContainText("1 selected");
  // The selected row is tinted.
  await page.mouse.move(0, 0);
  await expect.poll(tint).not.toBe(unselected);
  await bulk.getByRole("combobox", { name: "Set status to" }).click();
  await page.getByRole("option", { name: "Available" }).click();
  await bulk.getByRole("button", { name: "Apply to 1" }).click();
  const confirmBulk = page.getByRole("dialog", { name: "Change the status of 1 animal?" });
  await confirmBulk.getByRole("button", { name: "Set 1 animal to Available" }).click();
  const notice = page.getByRole("alert").filter({ hasText: "Status of 1 animal set to Available." });
  await expect(notice).toBeVisible();
  expect((await (await restGet(request, `/v1/pets/${id}`)).json()).status).toBe("available");
  // The notice undoes it: the animal is sold again.
  await notice.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByText("Status of 1 animal put back.")).toBeVisible();
  expect((await (await restGet(request, `/v1/pets/${id}`)).json()).status).toBe("sold");

  // Delete, after confirming.
  await page.getByRole("combobox", { name: "Status", exact: true }).click();
  await page.getByRole("option", { name: "All statuses" }).click();
  await page.getByLabel("Search by name").fill(`${name} II`);
  const toDelete = page.getByRole("row").filter({ hasText: `${name} II` });
  await toDelete.getByRole("button", { name: `Delete ${name} II` }).click();
  const confirm = page.getByRole("dialog", { name: `Delete ${name} II?` });
  await expect(confirm).toContainText("This cannot be undone.");
  await confirm.getByRole("button", { name: "Delete animal" }).click();
  await expect(page.getByText(`${name} II was deleted.`)).toBeVisible();
  await expect(page.getByText("No animals match")).toBeVisible();
  const remaining = await (await restGet(request, "/v1/pets?limit=100")).json();
  expect(remaining.map((p: { id: number }) => p.id)).not.toContain(id);
  expect((await restGet(request, `/v1/pets/${id}`)).status()).toBe(404);
});
