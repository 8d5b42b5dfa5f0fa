/**
 * One definition per figure (docs/contract.md section 4 "Usage and analytics"): the figures that share a label on
 * different screens, each read through its own procedure from one database seeded with accepted and refused calls,
 * agree, and count what their definition says: requests and calls reached the API, 429s apart, days are UTC days.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, countRequests, createTestAccount, type Harness, openHarness } from "./support";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date("2026-03-10T12:30:00.000Z");
const TODAY = Date.parse("2026-03-10T00:00:00.000Z");

const sum = (ns: number[]) => ns.reduce((n, x) => n + x, 0);
const reached = (c: { "2xx": number; "4xx": number; "5xx": number }) => c["2xx"] + c["4xx"] + c["5xx"];

describe("figures with one label agree on every screen", () => {
  let h: Harness;
  let admin: Caller;
  let member: Caller;
  let accountId: string;
  let adminKey: string;
  let accountKey: string;

  beforeAll(async () => {
    h = await openHarness();
    h.setNow(NOW);
    ({ caller: admin } = await h.signedIn("admin@example.com"));
    const account = await createTestAccount(h.rt, "Figures Inc");
    accountId = account.id;
    ({ caller: member } = await h.signedIn(account.ownerEmail));
    adminKey = (await admin.apiKeys.create({ name: "Admin key", plan: "pro" })).id;
    accountKey = (await member.portal.keys.create({ name: "Account key" })).id;
    const at = (ms: number) => new Date(ms);
    for (const key of [adminKey, accountKey]) {
      // Today: accepted, failed and refused calls.
      countRequests(h.rt, key, at(TODAY + 9 * HOUR), 11, "2xx");
      countRequests(h.rt, key, at(TODAY + 10 * HOUR), 3, "4xx");
      countRequests(h.rt, key, at(TODAY + 10 * HOUR), 2, "5xx");
      countRequests(h.rt, key, at(TODAY + 11 * HOUR), 7, "rate_limited");
      countRequests(h.rt, key, at(TODAY + 11 * HOUR), 4, "key_banned");
      // getPet, accepted and refused, within 7 and within 30 days.
      countRequests(h.rt, key, at(TODAY - 3 * DAY + HOUR), 5, "2xx", "getPet");
      countRequests(h.rt, key, at(TODAY - 3 * DAY + HOUR), 6, "rate_limited", "getPet");
      countRequests(h.rt, key, at(TODAY - 20 * DAY), 8, "2xx", "getPet");
      countRequests(h.rt, key, at(TODAY - 20 * DAY), 9, "key_banned", "getPet");
      // The first hour of the 30 days, and the last hour before them (within 720 hours of now, but not of the days).
      countRequests(h.rt, key, at(TODAY - 29 * DAY), 13, "2xx", "getPet");
      countRequests(h.rt, key, at(TODAY - 29 * DAY - HOUR), 17, "2xx", "getPet");
      countRequests(h.rt, key, at(TODAY - 29 * DAY - HOUR), 19, "rate_limited");
    }
    await h.rt.analytics?.flush();
  });
  afterAll(() => {
    h?.setNow(undefined);
    return h?.close();
  });

  const listRow = async (id: string) => {
    const page = await admin.apiKeys.list({ sort: "created", pageSize: 100 });
    const row = page.rows.find((r) => r.id === id);
    if (!row) throw new Error(`key ${id} not listed`);
    return row;
  };

  it("deprecated getPet calls of 30 days: the overview, its chart, the callers page, the key list and the key page", async () => {
    const traffic = await admin.overview.traffic();
    const getPet = traffic.byOperation.find((o) => o.operation === "getPet");
    if (!getPet) throw new Error("no getPet in the breakdown");
    const callers = await admin.apiKeys.deprecatedCalls({ days: 30 });
    const listed = await Promise.all([adminKey, accountKey].map(listRow));
    const daily = await Promise.all(
      [adminKey, accountKey].map((id) => admin.apiKeys.usage({ id, days: 30 })),
    );
    const perKey = 5 + 8 + 13;
    expect(reached(getPet)).toBe(2 * perKey);
    expect(getPet.rate_limited + getPet.key_banned).toBe(2 * (6 + 9));
    expect(sum(callers.rows.map((r) => r.calls))).toBe(2 * perKey);
    expect(listed.map((r) => r.getPetCalls30d)).toEqual([perKey, perKey]);
    expect(daily.map((days) => sum(days.map((d) => d.deprecatedGet)))).toEqual([perKey, perKey]);
  });

  it("a key's requests and 429s: the key list, the key's daily charts and its traffic", async () => {
    const row = await listRow(adminKey);
    const daily = await admin.apiKeys.usage({ id: adminKey, days: 30 });
    const traffic = await admin.apiKeys.traffic({ id: adminKey, days: 30 });
    const requests30d = 11 + 3 + 2 + 5 + 8 + 13;
    expect(row.requests30d).toBe(requests30d);
    expect(sum(daily.map((d) => d.requests))).toBe(requests30d);
    expect(sum(traffic.daily.map(reached))).toBe(requests30d);
    expect(row.requests7d).toBe(sum(daily.slice(-7).map((d) => d.requests)));
    expect(row.rateLimited7d).toBe(7 + 4 + 6);
    expect(sum(daily.slice(-7).map((d) => d.rateLimited))).toBe(row.rateLimited7d);
    expect(row.requestsToday).toBe(11 + 3 + 2);
    expect(traffic.requestsToday).toBe(row.requestsToday);
  });

  it("requests today: the overview, the key list, the account list and page, and the portal's pages", async () => {
    const overview = await admin.overview.keys();
    const listed = await Promise.all([adminKey, accountKey].map(listRow));
    const accounts = await admin.accounts.list({});
    const account = await member.portal.account();
    const usage = await member.portal.usage({});
    const today = 11 + 3 + 2;
    expect(overview.requests.today).toBe(sum(listed.map((r) => r.requestsToday)));
    expect(account.requestsToday).toBe(today);
    expect(accounts.find((a) => a.id === accountId)?.requestsToday).toBe(today);
    expect(sum(usage.keys.map((k) => k.requestsToday))).toBe(today);
    expect(usage.traffic.requestsToday).toBe(today);
    expect((await member.portal.keys.list()).map((k) => k.requestsToday)).toEqual([today]);
  });
});
