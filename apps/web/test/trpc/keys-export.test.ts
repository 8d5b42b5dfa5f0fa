/**
 * The keys table as CSV (GET /api/keys/export): the list's filtered view in its order with the list's figures,
 * admins only; and the deprecated callers' contacts (an account's owners, else whoever issued the key).
 */
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysExportResponse } from "../../src/server/keys-export";
import { SESSION_COOKIE } from "../../src/server/trpc/cookies";
import { type Caller, countRequests, createTestAccount, type Harness, openHarness } from "./support";

const NOW = new Date("2026-03-10T12:30:00.000Z");

describe("the keys CSV export", () => {
  let h: Harness;
  let admin: Caller;
  let adminToken: string;
  let staffToken: string;
  let ownerEmail: string;

  const download = (token: string | undefined, query: Record<string, string> = {}) =>
    keysExportResponse(
      h.rt,
      new Request(`http://dashboard.test/api/keys/export?${new URLSearchParams(query)}`, {
        headers: token ? { cookie: `${SESSION_COOKIE}=${token}` } : {},
      }),
    );

  beforeAll(async () => {
    h = await openHarness();
    h.setNow(NOW);
    ({ caller: admin, token: adminToken } = await h.signedIn("admin@example.com"));
    ({ token: staffToken } = await h.signedIn("staff@example.com"));
    const account = await createTestAccount(h.rt, "Contact Co");
    ownerEmail = account.ownerEmail;
    const { caller: owner } = await h.signedIn(ownerEmail);
    const quiet = await admin.apiKeys.create({ name: "Quiet", plan: "free" });
    const busy = await admin.apiKeys.create({ name: "Busy", plan: "pro" });
    const member = await owner.portal.keys.create({ name: "Member key" });
    countRequests(h.rt, busy.id, NOW, 4, "2xx", "getPet");
    countRequests(h.rt, busy.id, NOW, 2, "rate_limited");
    countRequests(h.rt, member.id, NOW, 1, "2xx", "getPet");
    countRequests(h.rt, quiet.id, NOW, 1, "2xx");
    await h.rt.analytics?.flush();
  });
  afterAll(() => {
    h?.setNow(undefined);
    return h?.close();
  });

  it("downloads the filtered view in the list's order, with the list's figures", async () => {
    const res = await download(adminToken, { plan: "pro", sort: "getPetCalls" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="api-keys-/);
    const rows = Papa.parse<string[]>((await res.text()).trimEnd(), { newline: "\r\n" }).data;
    const header = rows[0] ?? [];
    const at = (row: string[] | undefined, column: string) => row?.[header.indexOf(column)];
    expect(rows.slice(1).map((r) => at(r, "name"))).toEqual(["Busy"]);
    expect(at(rows[1], "getPet calls, 30 days")).toBe("4");
    expect(at(rows[1], "requests today")).toBe("4");
    expect(at(rows[1], "429s, 7 days")).toBe("2");
    const all = Papa.parse<string[]>(
      (await (await download(adminToken, { sort: "requestsToday" })).text()).trimEnd(),
      {
        newline: "\r\n",
      },
    ).data;
    expect(all.slice(1).map((r) => at(r, "name"))).toEqual(["Busy", "Member key", "Quiet"]);
  });

  it("refuses the download without a session (401), to staff (403) and for a bad filter (400)", async () => {
    expect((await download(undefined)).status).toBe(401);
    expect((await download(staffToken)).status).toBe(403);
    expect((await download(adminToken, { sort: "cost" })).status).toBe(400);
  });

  it("names whom to contact about getPet: the account's owners, else who issued the key", async () => {
    const callers = await admin.apiKeys.deprecatedCalls({});
    expect(callers.rows.map((r) => [r.name, r.contacts])).toEqual([
      ["Busy", ["admin@example.com"]],
      ["Member key", [ownerEmail]],
    ]);
  });
});
