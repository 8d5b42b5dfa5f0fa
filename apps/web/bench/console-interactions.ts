/**
 * How long the console takes to answer a person on 100-row pages of the scale data set
 * (`npm run bench:dashboard -- --browser`; docs/performance.md "How to reproduce"): in Chromium (the browser
 * tests' headless shell, 1280x800), each keystroke of a search typed at 150 ms a key, a row's checkbox, and "select
 * all on this page", on the animals and API keys pages. An interaction's time is the Event Timing API's
 * (`PerformanceEventTiming`, the measure behind Interaction to Next Paint): from the input event to the next frame
 * painted after its handlers ran, the longest event of the interaction. The API reports only events of 16 ms or
 * more, so an interaction it does not report counts as 16 ms ("<= 16").
 */
import { type BrowserContext, chromium, type Page } from "@playwright/test";
import { CHROMIUM_LAUNCH } from "../e2e/support/browser.ts";
import { median } from "./measure.ts";

/** One kind of interaction on one page: how many were measured, their median and longest time (ms). */
export interface InteractionResult {
  page: string;
  interaction: string;
  count: number;
  medianMs: number;
  maxMs: number;
}

/** The API's reporting floor (ms): shorter interactions are not reported. */
const FLOOR_MS = 16;
const KEY_DELAY_MS = 150;

declare global {
  interface Window {
    /** interactionId -> its longest event's duration (ms), filled by the observer `observe` installs. */
    __interactions?: Map<number, number>;
  }
}

/**
 * Installed in every document before its scripts (serialised, so it sees only its argument): records each
 * interaction's longest event of at least `floorMs`.
 */
function observe(floorMs: number): void {
  const seen = new Map<number, number>();
  window.__interactions = seen;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceEventTiming[]) {
      if (!entry.interactionId) continue;
      seen.set(entry.interactionId, Math.max(seen.get(entry.interactionId) ?? 0, entry.duration));
    }
  }).observe({ type: "event", durationThreshold: floorMs, buffered: true } as PerformanceObserverInit);
}

/** The interactions recorded so far in `page`: [interactionId, ms]. @throws when the observer is not installed. */
async function recorded(page: Page): Promise<[number, number][]> {
  const entries = await page.evaluate(() =>
    window.__interactions ? [...window.__interactions.entries()] : undefined,
  );
  if (!entries) throw new Error("the Event Timing observer is not installed in the page");
  return entries;
}

/**
 * Runs `act` (which makes `expected` interactions), lets the observer receive their entries (they are dispatched
 * after the frame they end in), and returns each interaction's time, `FLOOR_MS` for those not reported.
 */
async function timed(page: Page, expected: number, act: () => Promise<void>): Promise<number[]> {
  const before = new Set((await recorded(page)).map(([id]) => id));
  await act();
  await page.waitForTimeout(300);
  const durations = (await recorded(page)).filter(([id]) => !before.has(id)).map(([, ms]) => ms);
  return [...durations, ...Array(Math.max(0, expected - durations.length)).fill(FLOOR_MS)].slice(0, expected);
}

const summary = (page: string, interaction: string, times: number[]): InteractionResult => ({
  page,
  interaction,
  count: times.length,
  medianMs: median(times),
  maxMs: Math.max(...times),
});

/**
 * Waits until the table `table` shows a page of 100 rows: its `aria-rowcount` (rows and the header row), which a
 * table that renders only the rows near the viewport states as well as one that renders them all. The rows of the
 * previous view count: after a search is cleared, the next interactions start while the new rows are drawn.
 */
async function hundredRows(page: Page, table: string): Promise<void> {
  await page
    .getByRole("region", { name: table })
    .locator('table[aria-rowcount="101"], table:has(> tbody > tr:nth-of-type(100))')
    .waitFor({ timeout: 60_000 });
}

/** Opens `path` and waits for its table's 100 rows. */
async function openTable(page: Page, path: string, table: string): Promise<void> {
  await page.goto(path);
  await hundredRows(page, table);
}

/** Types `text` into the search box `label` a key at a time, then clears it and waits for 100 rows again. */
async function typeSearch(page: Page, label: string, text: string, table: string): Promise<number[]> {
  const box = page.getByLabel(label, { exact: true });
  await box.click();
  const times = await timed(page, text.length, () => page.keyboard.type(text, { delay: KEY_DELAY_MS }));
  await box.fill("");
  await hundredRows(page, table);
  return times;
}

async function animals(page: Page, rounds: number): Promise<InteractionResult[]> {
  const table = "Animals table";
  const typing: number[] = [];
  const boxes: number[] = [];
  const all: number[] = [];
  await openTable(page, "/admin/animals?size=100", table);
  for (let r = 0; r < rounds; r++) {
    typing.push(...(await typeSearch(page, "Search by name", "bella 42", table)));
    // Rows near the top: those a long table renders first.
    const rows = page.getByRole("region", { name: table }).getByRole("checkbox", { name: /^Select (?!all)/ });
    for (let i = 0; i < 5; i++) boxes.push(...(await timed(page, 1, () => rows.nth(2 * i + r).click())));
    for (let i = 0; i < 5; i++) boxes.push(...(await timed(page, 1, () => rows.nth(2 * i + r).click())));
    const selectAll = page.getByRole("checkbox", { name: "Select all animals on this page" });
    for (let i = 0; i < 2; i++) all.push(...(await timed(page, 1, () => selectAll.click())));
  }
  return [
    summary("animals (100 rows)", "a keystroke in the search", typing),
    summary("animals (100 rows)", "a row's checkbox", boxes),
    summary("animals (100 rows)", "select all on the page (and clear)", all),
  ];
}

async function keys(page: Page, rounds: number): Promise<InteractionResult[]> {
  const table = "API keys table";
  const typing: number[] = [];
  await openTable(page, "/admin/keys?size=100", table);
  for (let r = 0; r < rounds; r++)
    typing.push(...(await typeSearch(page, "Search by name or prefix", "Scale client 42", table)));
  return [summary("API keys (100 rows)", "a keystroke in the search", typing)];
}

/**
 * Measures the interactions (module comment) `rounds` times each against the dashboard at `baseUrl`, signed in by
 * the session cookie `cookie` (`name=value`). @returns one result per page and kind of interaction.
 * @throws when Chromium cannot start or a page does not show its 100 rows within a minute.
 */
export async function measureConsoleInteractions(
  baseUrl: string,
  cookie: string,
  rounds: number,
): Promise<InteractionResult[]> {
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 } });
    const [name, ...value] = cookie.split("=");
    await context.addCookies([{ name: name ?? "", value: value.join("="), url: baseUrl }]);
    await context.addInitScript(observe, FLOOR_MS);
    const page = await context.newPage();
    // A first visit of each page loads its code; the measured ones run with it cached, as a person's second visit.
    await openTable(page, "/admin/animals?size=100", "Animals table");
    await openTable(page, "/admin/keys?size=100", "API keys table");
    return [...(await animals(page, rounds)), ...(await keys(page, rounds))];
  } finally {
    await context?.close();
    await browser.close();
  }
}
