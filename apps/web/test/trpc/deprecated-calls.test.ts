/**
 * The keys that still call the deprecated getPet (apiKeys.deprecatedCalls and its CSV download): exactly the keys
 * with getPet calls that reached the API in the window, with their counts and last call (stored and unflushed),
 * sorted, paged, admins only.
 */
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deprecatedCallsExportResponse } from "../../src/server/deprecated-calls-export";
import { SESSION_COOKIE } from "../../src/server/trpc/cookies";
import { type Caller, countRequests, expectTrpcError, type Harness, openHarness } from "./support";

const HOUR = 3_600_000;
const NOW = new Date("2026-03-10T12:30:00.000Z");
const THIS_HOUR = Date.parse("2026-03-10T12:00:00.000Z");
/** The first hour of the 30-day window: today (UTC) and the 29 days before it. */
const FIRST_HOUR_30 = Date.parse("2026-02-09T00:00:00.000Z");

describe("apiKeys.deprecatedCalls (keys that call getPet)", () => {
  let h: Harness;
  let admin: Caller;
  let staff: Caller;
  let adminToken: string;
  let staffToken: string;
  const id: Record<string, string> = {};
  const prefix: Record<string, string> = {};

  /** GET /api/keys/deprecated-calls/export with `query`, signed in with `token` (none: no cookie). */
  const download = (token: string | undefined, query: Record<string, string> = {}) =>
    deprecatedCallsExportResponse(
      h.rt,
      new Request(`http://dashboard.test/api/keys/deprecated-calls/export?${new URLSearchParams(query)}`, {
        headers: token ? { cookie: `${SESSION_COOKIE}=${token}` } : {},
      }),
    );

  beforeAll(async () => {
    h = await openHarness();
    h.setNow(NOW);
    ({ caller: admin, token: adminToken } = await h.signedIn("admin@example.com"));
    ({ caller: staff, token: staffToken } = await h.signedIn("staff@example.com"));
    for (const [name, plan] of [
      ["Recent caller", "free"],
      ["Busy caller", "pro"],
      ["Edge of window", "business"],
      ["Revoked caller", "free"],
      ["Too old", "free"],
      ["Lists only", "pro"],
      ["Refused only", "free"],
    ] as const) {
      const key = await admin.apiKeys.create({ name, plan });
      id[name] = key.id;
      prefix[name] = key.prefix;
    }
    const at = (ms: number) => new Date(ms);
    const k = (name: string) => id[name] as string;
    countRequests(h.rt, k("Recent caller"), at(THIS_HOUR - HOUR + 60_000), 5, "2xx", "getPet");
    countRequests(h.rt, k("Recent caller"), at(THIS_HOUR - 2 * 24 * HOUR), 2, "4xx", "getPet");
    countRequests(h.rt, k("Recent caller"), at(THIS_HOUR - 2 * 24 * HOUR), 30, "2xx", "listPets");
    countRequests(h.rt, k("Busy caller"), at(THIS_HOUR - 5 * 24 * HOUR), 20, "2xx", "getPet");
    countRequests(h.rt, k("Busy caller"), at(THIS_HOUR - 5 * 24 * HOUR), 9, "rate_limited", "getPet");
    countRequests(h.rt, k("Edge of window"), at(FIRST_HOUR_30), 7, "5xx", "getPet");
    countRequests(h.rt, k("Revoked caller"), at(THIS_HOUR + 60_000), 2, "2xx", "getPet");
    countRequests(h.rt, k("Too old"), at(FIRST_HOUR_30 - 1), 50, "2xx", "getPet");
    countRequests(h.rt, k("Lists only"), at(THIS_HOUR), 40, "2xx", "listPets");
    countRequests(h.rt, k("Refused only"), at(THIS_HOUR), 4, "rate_limited", "getPet");
    countRequests(h.rt, k("Refused only"), at(THIS_HOUR), 1, "key_banned", "getPet");
    await h.rt.analytics?.flush();
    await admin.apiKeys.revoke({ id: k("Revoked caller") });
    // Counted by this instance and not yet stored: the view shows them as every other screen does.
    countRequests(h.rt, k("Recent caller"), at(THIS_HOUR + 120_000), 1, "2xx", "getPet");
  });
  afterAll(() => {
    h?.setNow(undefined);
    return h?.close();
  });

  const names = (page: { rows: { name: string }[] }) => page.rows.map((r) => r.name);

  it("lists exactly the keys that called getPet in the last 30 days, most calls first", async () => {
    const page = await admin.apiKeys.deprecatedCalls({});
    expect(page.total).toBe(4);
    expect(page.rows).toEqual([
      {
        id: id["Busy caller"],
        name: "Busy caller",
        prefix: prefix["Busy caller"],
        plan: "pro",
        state: "working",
        calls: 20,
        lastCallAt: new Date(THIS_HOUR - 5 * 24 * HOUR).toISOString(),
        contacts: ["admin@example.com"],
      },
      {
        id: id["Recent caller"],
        name: "Recent caller",
        prefix: prefix["Recent caller"],
        plan: "free",
        state: "working",
        calls: 8,
        lastCallAt: new Date(THIS_HOUR).toISOString(),
        contacts: ["admin@example.com"],
      },
      expect.objectContaining({
        name: "Edge of window",
        plan: "business",
        calls: 7,
        lastCallAt: new Date(FIRST_HOUR_30).toISOString(),
      }),
      expect.objectContaining({ name: "Revoked caller", state: "revoked", calls: 2 }),
    ]);
  });

  it("narrows to the last 7 days", async () => {
    const page = await admin.apiKeys.deprecatedCalls({ days: 7 });
    expect(page.total).toBe(3);
    expect(names(page)).toEqual(["Busy caller", "Recent caller", "Revoked caller"]);
    expect(page.rows[1]?.calls).toBe(8);
  });

  it("sorts by the last call, latest first (ties: more calls first)", async () => {
    expect(names(await admin.apiKeys.deprecatedCalls({ sort: "lastCall" }))).toEqual([
      "Recent caller",
      "Revoked caller",
      "Busy caller",
      "Edge of window",
    ]);
  });

  it("pages on the server with the total of the whole view", async () => {
    const first = await admin.apiKeys.deprecatedCalls({ pageSize: 3, page: 1 });
    const second = await admin.apiKeys.deprecatedCalls({ pageSize: 3, page: 2 });
    const beyond = await admin.apiKeys.deprecatedCalls({ pageSize: 3, page: 3 });
    expect(names(first)).toEqual(["Busy caller", "Recent caller", "Edge of window"]);
    expect(names(second)).toEqual(["Revoked caller"]);
    expect([first.total, second.total, beyond.total]).toEqual([4, 4, 4]);
    expect(beyond.rows).toEqual([]);
  });

  it("moves with the clock: a day later the call at the window's first hour has left it", async () => {
    h.setNow(new Date(NOW.getTime() + 24 * HOUR));
    try {
      expect(names(await admin.apiKeys.deprecatedCalls({}))).not.toContain("Edge of window");
    } finally {
      h.setNow(NOW);
    }
  });

  it("refuses staff and bad filters", async () => {
    await expectTrpcError(staff.apiKeys.deprecatedCalls({}), "FORBIDDEN");
    await expectTrpcError(admin.apiKeys.deprecatedCalls({ days: 14 as 7 }), "BAD_REQUEST");
    await expectTrpcError(admin.apiKeys.deprecatedCalls({ pageSize: 500 }), "BAD_REQUEST");
  });

  it("exports the whole view as CSV: a header and every key, in the view's order", async () => {
    const res = await download(adminToken, { days: "30", sort: "lastCall" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="deprecated-getpet-30d-/);
    const text = await res.text();
    expect(text.endsWith("\r\n")).toBe(true);
    const rows = Papa.parse<string[]>(text.trimEnd(), { newline: "\r\n" }).data;
    expect(rows[0]).toEqual([
      "key id",
      "name",
      "prefix",
      "plan",
      "state",
      "getPet calls",
      "last getPet call (UTC hour)",
      "contacts",
    ]);
    expect(rows.slice(1)).toEqual([
      [
        id["Recent caller"],
        "Recent caller",
        prefix["Recent caller"],
        "free",
        "working",
        "8",
        new Date(THIS_HOUR).toISOString(),
        "admin@example.com",
      ],
      [
        id["Revoked caller"],
        "Revoked caller",
        prefix["Revoked caller"],
        "free",
        "revoked",
        "2",
        new Date(THIS_HOUR).toISOString(),
        "admin@example.com",
      ],
      [
        id["Busy caller"],
        "Busy caller",
        prefix["Busy caller"],
        "pro",
        "working",
        "20",
        new Date(THIS_HOUR - 5 * 24 * HOUR).toISOString(),
        "admin@example.com",
      ],
      [
        id["Edge of window"],
        "Edge of window",
        prefix["Edge of window"],
        "business",
        "working",
        "7",
        new Date(FIRST_HOUR_30).toISOString(),
        "admin@example.com",
      ],
    ]);
  });

  it("exports in batches that resume where the last one ended: every key once", async () => {
    const seen: string[] = [];
    for await (const batch of h.rt.usage.deprecatedCallsBatches({ days: 30, sort: "calls" }, 1))
      seen.push(...batch.map((r) => r.name));
    expect(seen).toEqual(["Busy caller", "Recent caller", "Edge of window", "Revoked caller"]);
  });

  it("refuses the download without a session (401), to staff (403) and for a bad filter (400)", async () => {
    expect((await download(undefined)).status).toBe(401);
    expect((await download(staffToken)).status).toBe(403);
    const bad = await download(adminToken, { days: "14" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "validation_failed" });
  });
});
