/** Staff manage categories: server-side validation shows on the field, in-use categories cannot be deleted. */
import { expect, test } from "@playwright/test";
import { e2e, readState } from "./support/accounts";
import { openSignedIn, restGet, unique } from "./support/helpers";

test("staff create, rename and delete a category", async ({ page, request }) => {
  await openSignedIn(page, e2e.staff);
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "Categories" })
    .click();
  await expect(page.getByRole("heading", { name: "Categories" })).toBeVisible();

  // A taken name is refused by the server; the message appears under the field.
  const field = page.getByLabel("New category");
  await field.fill("dogs");
  await page.getByRole("button", { name: "Create category" }).click();
  await expect(page.getByText("is already taken")).toBeVisible();

  const name = unique("hamsters");
  await field.fill(name);
  await page.getByRole("button", { name: "Create category" }).click();
  await expect(page.getByText(`Category "${name}" was created (id `)).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("0");

  // Animals can be filed under it through the REST API at once.
  const id = Number(
    (await page.request.get("/api/trpc/categories.list").then((r) => r.json())).result.data.find(
      (c: { name: string }) => c.name === name,
    ).id,
  );
  const created = await request.post("/v1/pets", {
    headers: { Authorization: `Bearer ${readState().checkerKey}` },
    data: { name: "Nibbles", categoryId: id },
  });
  expect(created.status()).toBe(201);
  await page.reload();
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("1");
  await expect(page.getByRole("button", { name: `Delete ${name} (in use)` })).toHaveAttribute(
    "aria-disabled",
    "true",
  );
  const pet = await created.json();
  expect((await restGet(request, `/v1/pets/${pet.id}`)).status()).toBe(200);

  // Rename keeps the id.
  await page.getByRole("button", { name: `Rename ${name}` }).click();
  const dialog = page.getByRole("dialog", { name: `Rename "${name}"` });
  await dialog.getByLabel(/^Name/).fill(`${name} and gerbils`);
  await dialog.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByText(`"${name}" is now "${name} and gerbils".`)).toBeVisible();
  expect((await (await restGet(request, `/v1/pets/${pet.id}`)).json()).categoryId).toBe(id);

  // Once no animal uses it, it can be deleted after confirming.
  await page.goto("/admin/animals");
  await page.getByLabel("Search by name").fill("Nibbles");
  const nibbles = page.getByRole("row").filter({ hasText: `${name} and gerbils` });
  await nibbles.getByRole("button", { name: "Delete Nibbles" }).click();
  await page
    .getByRole("dialog", { name: "Delete Nibbles?" })
    .getByRole("button", { name: "Delete animal" })
    .click();
  await expect(page.getByText("Nibbles was deleted.")).toBeVisible();
  await page.goto("/admin/categories");
  await page.getByRole("button", { name: `Delete ${name} and gerbils` }).click();
  await page
    .getByRole("dialog", { name: `Delete "${name} and gerbils"?` })
    .getByRole("button", { name: "Delete category" })
    .click();
  await expect(page.getByText(`Category "${name} and gerbils" was deleted.`)).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: name })).toHaveCount(0);
});
