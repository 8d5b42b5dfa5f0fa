/**
 * The dashboard as an API console: the same usage figure on every screen, lists whose view lives in the
 * URL (reload and Back keep it), a long page drawn near the viewport, the key list's search, filters and paging, the
 * users list's sort, the audit log's names, day range,
 * action filter and streamed CSV export, category ids and case-insensitive names, a 404 inside the dashboard (for
 * a key or endpoint no record has too), a list page past its end, and the keys calling the deprecated getPet
 * reached from the overview.
 */
import fs from "node:fs";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import Papa from "papaparse";
import { e2e, readState } from "./support/accounts";
import { expectAccessible, openSignedIn, restGet, snap, unique } from "./support/helpers";

test("requests today agree between the overview and the keys page for the same key", async ({
  page,
  request,
}) => {
  await openSignedIn(page, e2e.admin, null);
  const name = unique("Busy client");
  await page.goto("/admin/keys");
  await page.getByRole("button", { name: "Issue key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Issue an API key" });
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole("button", { name: "Issue key" }).click();
  const secret = await page.getByTestId("new-api-key").inputValue();
  await page.getByRole("button", { name: "I have stored the key" }).click();
  // Enough calls to be among the day's five busiest keys while other files' keys make theirs.
  for (let i = 0; i < 30; i++)
    expect((await restGet(request, "/v1/pets?limit=1", secret)).status()).toBe(200);

  // Right away (before the counters are flushed) and after: both screens say 30.
  for (const _round of [1, 2]) {
    await page.goto("/admin");
    const top = page.getByRole("region", { name: "Top keys by requests today" });
    await expect(top.getByRole("row").filter({ hasText: name })).toContainText(/30$/);
    await page.goto(`/admin/keys?q=${encodeURIComponent(name)}`);
    await expect(page.getByRole("row").filter({ hasText: name }).getByRole("cell").nth(5)).toHaveText("30");
    // The e2e server writes the counts every second (ANALYTICS_FLUSH_INTERVAL_MS): the second round reads them
    // from the database.
    await page.waitForTimeout(1_100);
  }
  await expect(page.getByText("Requests, last 24 h")).toHaveCount(0);
});

const settle = (page: Page) => expect(page.locator("[aria-busy=true]")).toHaveCount(0);

/**
 * Creates `count` animals named `<tag> 00`, `<tag> 01`, ... through the REST API, in the first category, each with
 * `statusOf(i)`. @returns their names, in order.
 */
async function createAnimals(
  request: APIRequestContext,
  tag: string,
  count: number,
  statusOf: (i: number) => "available" | "pending" | "sold",
): Promise<string[]> {
  const categoryId = Object.values(readState().categories)[0];
  const names = Array.from({ length: count }, (_, i) => `${tag} ${String(i).padStart(2, "0")}`);
  for (const [i, name] of names.entries()) {
    const created = await request.post("/v1/pets", {
      headers: { Authorization: `Bearer ${readState().checkerKey}` },
      data: { name, categoryId, status: statusOf(i) },
    });
    expect(created.status()).toBe(201);
  }
  return names;
}

test("the animals view lives in the URL: reload and Back keep filters, sort, search and page", async ({
  page,
  request,
}) => {
  // Animals of its own, found by a search: other files create animals meanwhile, which would move a page of the
  // whole store between two readings.
  const tag = unique("Drove");
  await createAnimals(request, tag, 24, (i) => (i % 4 === 3 ? "sold" : "available"));
  await openSignedIn(page, e2e.staff, "/admin/animals");
  await page.getByLabel("Search by name").fill(tag);
  await expect(page).toHaveURL(/q=Drove/);
  await page.getByRole("combobox", { name: "Status", exact: true }).click();
  await page.getByRole("option", { name: "Available" }).click();
  await page.getByRole("button", { name: /^Name/ }).click();
  await page.getByRole("button", { name: /^Name/ }).click();
  // Each control is clicked once the rows it changed are drawn: rows arriving move the pager under the pointer.
  const rows = page.getByRole("table").getByRole("row");
  await expect(rows.nth(1)).toContainText(`${tag} 22`);
  await expect(rows).toHaveCount(19);
  await settle(page);
  await page.getByRole("combobox", { name: "Animals per page" }).click();
  await page.getByRole("option", { name: "10", exact: true }).click();
  await expect(rows).toHaveCount(11);
  await settle(page);
  await page.getByRole("button", { name: "Page 2" }).click();
  await expect(page).toHaveURL(/status=available/);
  await expect(page).toHaveURL(/sort=name/);
  await expect(page).toHaveURL(/dir=desc/);
  await expect(page).toHaveURL(/size=10/);
  await expect(page).toHaveURL(/page=2/);
  // 18 available (every fourth is sold), by name from Z to A, 10 a page: page 2 holds the last 8, from "09".
  const firstOnPage2 = `${tag} 09`;
  await expect(rows.nth(1)).toContainText(firstOnPage2);
  await expect(rows).toHaveCount(9);

  await page.reload();
  await settle(page);
  await expect(page.getByRole("combobox", { name: "Status", exact: true })).toHaveValue("Available");
  await expect(page.getByLabel("Search by name")).toHaveValue(tag);
  await expect(page.getByRole("button", { name: "Page 2" })).toHaveAttribute("data-active");
  await expect(page.getByRole("table").getByRole("row").nth(1)).toContainText(firstOnPage2);

  // Into an animal's category list and Back: the same view.
  await page.goto("/admin/categories");
  await page.goBack();
  await expect(page).toHaveURL(/page=2/);
  await expect(page.getByRole("table").getByRole("row").nth(1)).toContainText(firstOnPage2);
  await page.goBack();
  await expect(page).not.toHaveURL(/page=2/);

  // While the next page is on its way, the rows shown are dimmed, and they are whole again with the new ones.
  await page.goto("/admin/animals");
  await settle(page);
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/api\/trpc\/pets\.search/, async (route) => {
    await held;
    await route.continue();
  });
  const table = page.locator("[data-refreshing]").filter({ has: page.getByRole("table") });
  await expect(table).toHaveCSS("opacity", "1");
  await page.getByRole("button", { name: "Page 2" }).click();
  await expect(page.getByRole("table")).toHaveAttribute("aria-busy", "true");
  await expect(table).toHaveCSS("opacity", "0.5");
  release();
  await page.unrouteAll({ behavior: "wait" });
  await settle(page);
  await expect(table).toHaveCSS("opacity", "1");

  // A shared link opens the same view.
  await page.goto("/admin/animals?q=Rex");
  await expect(page.getByLabel("Search by name")).toHaveValue("Rex");
  await expect(page.getByRole("table").getByRole("row").filter({ hasText: "Rex" })).toHaveCount(1);
});

test("a long page draws the rows near the viewport: the count is announced, scrolling reaches every row, selecting takes them all", async ({
  page,
  request,
}) => {
  const tag = unique("Herd");
  const names = await createAnimals(request, tag, 60, () => "available");
  await openSignedIn(page, e2e.staff, `/admin/animals?q=${encodeURIComponent(tag)}&sort=name&size=100`);
  const table = page.getByRole("region", { name: "Animals table" }).getByRole("table");
  await expect(table).toHaveAttribute("aria-rowcount", "61");
  await settle(page);
  const drawn = table.locator("tbody tr[aria-rowindex]");
  await expect(drawn.first()).toHaveAttribute("aria-rowindex", "2");
  await expect(drawn.first()).toContainText(names[0] as string);
  expect(await drawn.count()).toBeLessThan(60);
  await expectAccessible(page, "a page of 60 animals, drawn near the viewport");

  // "Select all" takes the whole page, drawn or not; the last row is drawn once scrolled to, still selected.
  await page.getByRole("checkbox", { name: "Select all animals on this page" }).check();
  await expect(page.getByRole("region", { name: "Bulk actions" })).toContainText("60 selected");
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const last = page.getByRole("row").filter({ hasText: names[59] as string });
  await expect(last).toBeVisible();
  await expect(last).toHaveAttribute("aria-rowindex", "61");
  await expect(last.getByRole("checkbox", { name: `Select ${names[59]}` })).toBeChecked();
  await expect(page.getByRole("row").filter({ hasText: names[0] as string })).toHaveCount(0);

  // With the keyboard alone: Tab from the last row drawn at the top goes on into rows drawn as the focus moves.
  await page.getByRole("checkbox", { name: "Select all animals on this page" }).uncheck();
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(page.getByRole("row").filter({ hasText: names[0] as string })).toBeVisible();
  const lastDrawn = Number(await drawn.last().getAttribute("aria-rowindex"));
  await drawn
    .last()
    .getByRole("button", { name: /^Delete / })
    .focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press("Tab");
  // The focused row stays drawn when it scrolls out of view.
  const focusedRow = await page.evaluate(() =>
    Number(document.activeElement?.closest("tr")?.getAttribute("aria-rowindex")),
  );
  expect(focusedRow).toBeGreaterThan(lastDrawn);
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect(page.getByRole("row").filter({ hasText: names[59] as string })).toBeVisible();
  expect(
    await page.evaluate(() => Number(document.activeElement?.closest("tr")?.getAttribute("aria-rowindex"))),
  ).toBe(focusedRow);
});

test("the keys list is searched, filtered by plan, state and activity, and paged on the server", async ({
  page,
}, testInfo) => {
  await openSignedIn(page, e2e.admin, null);
  const tag = unique("Fleet");
  for (const [n, plan] of [
    ["a", "Free"],
    ["b", "Pro"],
    ["c", "Pro"],
  ] as const) {
    await page.goto("/admin/keys");
    await page.getByRole("button", { name: "Issue key" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Issue an API key" });
    await dialog.getByLabel(/^Name/).fill(`${tag} ${n}`);
    await dialog.getByRole("combobox", { name: "Plan" }).click();
    await page.getByRole("option", { name: plan, exact: true }).click();
    await dialog.getByRole("button", { name: "Issue key" }).click();
    await page.getByRole("button", { name: "I have stored the key" }).click();
  }
  await page.getByLabel("Search by name or prefix").fill(tag.toUpperCase());
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(4);
  await page.getByRole("combobox", { name: "Plan" }).click();
  await page.getByRole("option", { name: "Pro", exact: true }).click();
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(3);
  await expect(page).toHaveURL(/plan=pro/);

  // Revoke one, then filter by state.
  const row = page.getByRole("row").filter({ hasText: `${tag} c` });
  await row.getByRole("button", { name: /^Actions for/ }).click();
  await page.getByRole("menuitem", { name: "Revoke…" }).click();
  await page.getByRole("button", { name: "Revoke key" }).click();
  await page.getByRole("combobox", { name: "State" }).click();
  await page.getByRole("option", { name: "Revoked", exact: true }).click();
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(2);
  await expect(page.getByRole("table")).toContainText(`${tag} c`);
  await page.reload();
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(2);
  await snap(page, testInfo, "keys-filtered");

  // Paging on the server: one key per page.
  await page.goto(`/admin/keys?q=${encodeURIComponent(tag)}&size=10`);
  await expect(page.getByText("1–3 of 3")).toBeVisible();

  // Sorted by 429s of the last 7 days, by the header of their own column; none of these keys has any.
  await page.getByRole("button", { name: /^429s, 7 days/ }).click();
  await expect(page).toHaveURL(/sort=rateLimited7d/);
  await expect(page.getByRole("columnheader", { name: /^429s, 7 days/ })).toHaveAttribute(
    "aria-sort",
    "descending",
  );
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(4);

  // By activity: new keys nobody used are "not used for 30 days", and none was used in the last 7.
  await page.getByRole("combobox", { name: "Activity" }).click();
  await page.getByRole("option", { name: "Not used for 30 days" }).click();
  await expect(page).toHaveURL(/activity=unused30d/);
  await expect(page.getByRole("table").getByRole("row")).toHaveCount(4);
  await page.getByRole("combobox", { name: "Activity" }).click();
  await page.getByRole("option", { name: "Used in the last 7 days" }).click();
  await expect(page.getByText("No keys match")).toBeVisible();
});

test("the audit log names entities, filters by day and action, and exports the filtered view as CSV", async ({
  page,
}) => {
  await openSignedIn(page, e2e.admin, null);
  const name = unique("Audited category");
  await page.goto("/admin/categories");
  await page.getByLabel("New category").fill(name);
  await page.getByRole("button", { name: "Create category" }).click();
  await expect(page.getByText(`Category "${name}" was created`)).toBeVisible();

  await page.goto("/admin/audit?entity=category");
  const entry = page.getByRole("row").filter({ hasText: "category.create" }).filter({ hasText: name });
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText("category");
  // Who by name, and the changes field by field.
  await expect(entry).toContainText(`${e2e.admin.name} <${e2e.admin.email}>`);
  await entry.getByRole("button", { name: /^Changes of category\.create/ }).click();
  const changes = page.getByRole("dialog").getByRole("table", { name: "Changes" });
  const nameRow = changes
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: "name", exact: true }) });
  await expect(nameRow.getByRole("cell")).toHaveText(["—", name]);
  await page.keyboard.press("Escape");

  // Days, picked with a preset: today finds it, days in the past do not (the URL keeps the range).
  const day = (d: Date) =>
    `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  const today = day(new Date());
  await page.getByRole("button", { name: "Days", exact: true }).click();
  await page.getByRole("button", { name: "Today", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`from=${today}&to=${today}|to=${today}&from=${today}`));
  await expect(entry).toHaveCount(1);
  const printed = new Date().toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
  await expect(page.getByRole("button", { name: "Days", exact: true })).toContainText(printed);
  await page.goto("/admin/audit?entity=category&from=2001-01-01&to=2001-01-02");
  await expect(page.getByText("No entries match")).toBeVisible();
  await page.getByRole("button", { name: "Days", exact: true }).click();
  await page.getByRole("button", { name: "Last 7 days" }).click();
  await expect(entry).toHaveCount(1);

  // What: one action; the URL keeps it and the export follows it.
  await page.getByRole("combobox", { name: "What" }).click();
  await page.getByRole("option", { name: "category.create" }).click();
  await expect(page).toHaveURL(/action=category\.create/);
  await expect(entry).toHaveCount(1);
  await expect(page.getByRole("row").filter({ hasText: "category.rename" })).toHaveCount(0);

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^audit-log-.*\.csv$/);
  const csv = fs.readFileSync(String(await file.path()), "utf8");
  const rows = Papa.parse<string[]>(csv.trim()).data;
  expect(rows[0]?.slice(0, 7)).toEqual([
    "id",
    "time (UTC)",
    "actor",
    "action",
    "entity type",
    "entity id",
    "entity name",
  ]);
  expect(rows.slice(1).every((r) => r[4] === "category" && r[3] === "category.create")).toBe(true);
  expect(rows.some((r) => r[6] === name && r[3] === "category.create")).toBe(true);
});

test("category ids are shown and copyable; names are unique regardless of case", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await openSignedIn(page, e2e.staff, "/admin/categories");
  const name = unique("hamsters UX");
  await page.getByLabel("New category").fill(name);
  await page.getByRole("button", { name: "Create category" }).click();
  await expect(page.getByText(`Category "${name}" was created`)).toBeVisible();
  await page.getByLabel("New category").fill(name.toUpperCase());
  await page.getByRole("button", { name: "Create category" }).click();
  await expect(page.getByText(`This is already taken by "${name}" (case does not matter).`)).toBeVisible();

  const row = page.getByRole("row").filter({ hasText: name });
  const id = await row.locator("code").innerText();
  expect(id).toMatch(/^\d+$/);
  await row.getByRole("button", { name: `Copy the id of ${name}` }).click();
  await expect(row.getByRole("button", { name: `Copy the id of ${name}` })).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);
  await expect(page.getByRole("row").filter({ hasText: new RegExp(name, "i") })).toHaveCount(1);
});

test("the users list sorts by its columns on the server: role by rank, names by letter, dates as dates, in the URL", async ({
  page,
}) => {
  await openSignedIn(page, e2e.admin, "/admin/users");
  const table = page.getByRole("region", { name: "Users table" });
  /** The texts of the `n`-th column (from 1) of every row, read once the list has settled. */
  const column = async (n: number) => {
    await settle(page);
    return table.locator(`tbody tr td:nth-child(${n})`).allTextContents();
  };
  const header = (name: string) => page.getByRole("columnheader", { name: new RegExp(`^${name}`) });
  const rank = (role: string) => (role === "admin" ? 0 : 1);
  const isSorted = (values: number[]) => values.every((v, i) => i === 0 || (values[i - 1] as number) <= v);

  // By default admins first.
  await expect(header("Role")).toHaveAttribute("aria-sort", "ascending");
  const roles = await column(3);
  expect(roles).toContain("admin");
  expect(roles).toContain("staff");
  expect(isSorted(roles.map(rank))).toBe(true);
  await page.getByRole("button", { name: /^Role/ }).click();
  // The default sort is left out of the URL, its direction is not.
  await expect(page).toHaveURL(/[?&]dir=desc(&|$)/);
  await expect(page).not.toHaveURL(/[?&]sort=/);
  await expect(header("Role")).toHaveAttribute("aria-sort", "descending");
  await expect.poll(async () => isSorted((await column(3)).map((r) => -rank(r)))).toBe(true);

  // Names A to Z regardless of case; a reload keeps the sort.
  await page.getByRole("button", { name: /^Name/ }).click();
  await expect(page).toHaveURL(/[?&]sort=name(&|$)/);
  await expect(page).not.toHaveURL(/[?&]dir=/);
  await page.reload();
  await expect(header("Name")).toHaveAttribute("aria-sort", "ascending");
  await expect(header("Role")).toHaveAttribute("aria-sort", "none");
  const names = (await column(1)).map((n) => n.replace(/ \(you\)$/, "").toLowerCase());
  expect(names).toEqual([...names].sort());

  // Most sessions first, then the newest first (by the date, not its text).
  await page.getByRole("button", { name: /^Sessions/ }).click();
  await expect(header("Sessions")).toHaveAttribute("aria-sort", "descending");
  await expect.poll(async () => isSorted((await column(5)).map((n) => -Number(n)))).toBe(true);
  await page.getByRole("button", { name: /^Created/ }).click();
  await expect(page).toHaveURL(/[?&]sort=createdAt(&|$)/);
  await expect(header("Created")).toHaveAttribute("aria-sort", "descending");
  await expect.poll(async () => isSorted((await column(6)).map((d) => -Date.parse(d)))).toBe(true);
});

test("an unknown dashboard address is a 404 inside the dashboard, and the favicon exists", async ({
  page,
}, testInfo) => {
  await openSignedIn(page, e2e.staff, null);
  const response = await page.goto("/admin/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Dashboard pages" })).toBeVisible();
  await page.getByRole("link", { name: "Back to the overview" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await page.goto("/admin/no-such-page");
  await snap(page, testInfo, "not-found");
  const favicon = await page.request.get("/favicon.ico");
  expect(favicon.status()).toBe(200);
  expect(favicon.headers()["content-type"]).toMatch(/image\//);
  const icon = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(icon).toBeTruthy();
  expect((await page.request.get(String(icon))).status()).toBe(200);
});

test("a key or endpoint address no record has is the dashboard's 404; a list page past its end offers the last page", async ({
  page,
}) => {
  await openSignedIn(page, e2e.admin, null);
  for (const path of [
    `/admin/keys/${crypto.randomUUID()}`,
    "/admin/keys/not-a-key",
    `/admin/webhooks/${crypto.randomUUID()}`,
  ]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(page.getByText(/^Could not load/)).toHaveCount(0);
  }
  await page.goto("/admin/animals?page=999");
  await expect(page.getByText("Page 999 has nothing on it")).toBeVisible();
  await expect(page.getByRole("table")).toHaveCount(0);
  const last = page.getByRole("button", { name: /^Go to page \d+$/ });
  const lastPage = (await last.innerText()).replace(/\D/g, "");
  await last.click();
  await expect(page).toHaveURL(new RegExp(`[?&]page=${lastPage}(&|$)`));
  await expect(page.getByRole("button", { name: `Page ${lastPage}` })).toHaveAttribute("data-active");
});

test("a key that calls the deprecated getPet is found from the overview's getPet figure, with its count", async ({
  page,
  request,
}) => {
  await openSignedIn(page, e2e.admin, "/admin/keys");
  const name = unique("getPet caller");
  await page.getByRole("button", { name: "Issue key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Issue an API key" });
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByRole("button", { name: "Issue key" }).click();
  const secret = await page.getByTestId("new-api-key").inputValue();
  await page.getByRole("button", { name: "I have stored the key" }).click();
  const [pet] = await (await restGet(request, "/v1/pets?limit=1", secret)).json();
  for (let i = 0; i < 3; i++)
    expect((await restGet(request, `/v1/pets/${pet.id}`, secret)).status()).toBe(200);

  await page.goto("/admin");
  await page
    .getByRole("region", { name: "Deprecated getPet" })
    .getByRole("link", { name: "See the keys that call getPet" })
    .click();
  await expect(page).toHaveURL(/\/admin\/keys\/deprecated-calls$/);
  await expect(page.getByRole("heading", { name: "Keys calling the deprecated getPet" })).toBeVisible();
  // Latest call first: the key just used is on the first page whatever other keys called.
  await page.getByRole("button", { name: /^Last call/ }).click();
  await expect(page).toHaveURL(/sort=lastCall/);
  const row = page
    .getByRole("region", { name: "Keys calling getPet" })
    .getByRole("row")
    .filter({ hasText: name });
  await expect(row.getByRole("cell").nth(5)).toHaveText("3");
  await expect(row.getByRole("cell").nth(3)).toHaveText("working");
  await expect(row.getByRole("cell").nth(4)).toHaveText(e2e.admin.email);
  await expectAccessible(page, "the keys calling getPet");

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const csv = fs.readFileSync(String(await (await download).path()), "utf8");
  const line = Papa.parse<string[]>(csv.trim()).data.find((r) => r[1] === name);
  expect(line?.slice(3, 6)).toEqual(["free", "working", "3"]);
});
