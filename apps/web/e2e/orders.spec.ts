/**
 * Orders in the browser (docs/contract.md section 4 "Orders", section 7 "Orders in the portal"): an API client
 * orders an animal over /v1; staff find the order on the Orders page by its animal and status, and complete it after
 * confirming (the animal is sold); the animal's dialog lists the order. A portal member cancels the account's order
 * after confirming (the animal is available again). Every page on the way passes axe.
 */
import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import { e2e, readState } from "./support/accounts";
import { expectAccessible, openSignedIn, restGet, snap, unique } from "./support/helpers";
import { acceptInvitation, asAdmin, createAccount, createKey } from "./support/portal";

/** A new available animal, added by the admin. @returns its id and name. */
async function newAnimal(browser: Browser, base: string) {
  const name = unique(base);
  const pet = await asAdmin<{ id: number }>(browser, "pets.create", {
    name,
    categoryId: readState().categories.dogs,
    status: "available",
  });
  return { id: pet.id, name };
}

/** Orders animal `petId` over the REST API with `key`. @returns the order's id. */
async function placeOrder(request: APIRequestContext, key: string, petId: number): Promise<number> {
  const response = await request.post("/v1/store/orders", {
    headers: { Authorization: `Bearer ${key}` },
    data: { petId },
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

/** Opens the actions of order `id` in the orders table and confirms `action` ("Complete", "Cancel"). */
async function confirmOrderAction(page: Page, id: number, action: "Complete" | "Cancel") {
  const row = page.getByRole("row").filter({ hasText: `#${id}` });
  await row.getByRole("button", { name: `Actions for order ${id}` }).click();
  await page.getByRole("menuitem", { name: `${action}…` }).click();
  const dialog = page.getByRole("dialog", { name: `${action} order ${id}?` });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: `${action} order` }).click();
  await expect(dialog).toBeHidden();
  return row;
}

test("staff find an API client's order by its animal and complete it after confirming", async ({
  page,
  browser,
  request,
}, testInfo) => {
  const animal = await newAnimal(browser, "Orderly");
  const issued = await asAdmin<{ key: string }>(browser, "apiKeys.create", {
    name: unique("Orders e2e"),
    plan: "pro",
  });
  const orderId = await placeOrder(request, issued.key, animal.id);

  await openSignedIn(page, e2e.staff);
  await expect(page.getByRole("region", { name: "Orders" })).toContainText("Open holds");
  await page
    .getByRole("navigation", { name: "Dashboard pages" })
    .getByRole("link", { name: "Orders" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Orders" })).toBeVisible();
  await page.getByRole("textbox", { name: "Animal id" }).fill(String(animal.id));
  await page.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "Placed", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`pet=${animal.id}.*status=placed|status=placed.*pet=${animal.id}`));
  const table = page.getByRole("region", { name: "Orders table" });
  await expect(table.getByRole("row")).toHaveCount(2);
  const row = table.getByRole("row").filter({ hasText: `#${orderId}` });
  await expect(row).toContainText(animal.name);
  await expect(row).toContainText("Placed");
  await expectAccessible(page, "the Orders page");
  await snap(page, testInfo, "orders");

  // Cancel in the dialog keeps the order; confirming completes it.
  await row.getByRole("button", { name: `Actions for order ${orderId}` }).click();
  await page.getByRole("menuitem", { name: "Complete…" }).click();
  const dialog = page.getByRole("dialog", { name: `Complete order ${orderId}?` });
  await expect(dialog).toContainText(`${animal.name} (#${animal.id}) becomes sold`);
  await expectAccessible(page, "the confirmation of completing an order");
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText("Placed");
  await confirmOrderAction(page, orderId, "Complete");
  await expect(page.getByText(`Order ${orderId} was completed.`)).toBeVisible();
  // Filtered by "placed", the completed order leaves the list.
  await expect(page.getByText("No orders match")).toBeVisible();
  const order = await request.get(`/v1/store/orders/${orderId}`, {
    headers: { Authorization: `Bearer ${issued.key}` },
  });
  expect(await order.json()).toMatchObject({ id: orderId, status: "completed" });
  expect(await (await restGet(request, `/v1/pets/${animal.id}`)).json()).toMatchObject({ status: "sold" });

  // The animal's dialog lists its order and links to the Orders page filtered by it.
  await page.goto(`/admin/animals?q=${encodeURIComponent(animal.name)}`);
  await page.getByRole("button", { name: `Edit ${animal.name}` }).click();
  const edit = page.getByRole("dialog", { name: `Edit ${animal.name}` });
  const orders = edit.getByRole("region", { name: "Orders of this animal" });
  await expect(orders.getByRole("row").filter({ hasText: `#${orderId}` })).toContainText("Completed");
  await expectAccessible(page, "an animal's dialog with its orders");
  await snap(page, testInfo, "animal-orders");
  await orders.getByRole("link", { name: "See on the Orders page" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/orders\\?pet=${animal.id}$`));
  await expect(page.getByRole("region", { name: "Orders table" })).toContainText(`#${orderId}`);
});

test("a portal member cancels the account's order after confirming", async ({
  page,
  browser,
  request,
}, testInfo) => {
  const accountName = unique("Order Pets");
  const { invitationUrl } = await createAccount(
    browser,
    accountName,
    `orders-${Date.now().toString(36)}@example.com`,
  );
  await acceptInvitation(page, invitationUrl, "Ola Owner");
  const keyName = unique("Checkout");
  const secret = await createKey(page, keyName);
  const animal = await newAnimal(browser, "Portal pup");
  const orderId = await placeOrder(request, secret, animal.id);

  await page.getByRole("navigation", { name: "Portal pages" }).getByRole("link", { name: "Orders" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Orders" })).toBeVisible();
  const table = page.getByRole("region", { name: "Orders table" });
  const row = table.getByRole("row").filter({ hasText: `#${orderId}` });
  await expect(row).toContainText(animal.name);
  await expect(row).toContainText(keyName);
  await expect(table.getByRole("row")).toHaveCount(2);
  await expectAccessible(page, "the portal's Orders page");
  await snap(page, testInfo, "portal-orders");

  await row.getByRole("button", { name: `Actions for order ${orderId}` }).click();
  await expect(page.getByRole("menuitem", { name: "Complete…" })).toHaveCount(0);
  await page.keyboard.press("Escape");
  await confirmOrderAction(page, orderId, "Cancel");
  await expect(page.getByText(`Order ${orderId} was cancelled.`)).toBeVisible();
  await expect(row).toContainText("Cancelled");
  await expect(row.getByRole("button", { name: `Actions for order ${orderId}` })).toHaveCount(0);
  expect(await (await restGet(request, `/v1/pets/${animal.id}`)).json()).toMatchObject({
    status: "available",
  });
});
