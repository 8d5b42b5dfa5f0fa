/**
 * A person is never refused like a bot (docs/contract.md section 3, "Rate limits"): on a loaded instance (every
 * page takes 800 ms of the pools' clock) with the default pools, one client's ordinary signed-out sequence (the
 * sign-in pages, the home page, /docs, a sign-in too large for its 413, an invitation's page and its acceptance)
 * is answered, while another address past its first few requests is still refused; a page load refused by the
 * address's budget gets a styled page with Retry-After that reloads itself. The in-process app with a stand-in
 * for Next.
 */
import { describe, expect, it } from "vitest";
import { useInProcessApp } from "./in-process.ts";
import { PASSWORD } from "./support.ts";

const BUDGET = 20;
const PAGE = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

describe("people among the anonymous protections", () => {
  /** The pools' clock (ms), and how long a page takes on it. */
  let clock = 0;
  let pageMs = 800;
  const app = useInProcessApp(
    {
      DASHBOARD_CONCURRENCY: "4",
      DASHBOARD_QUEUE: "16",
      DASHBOARD_ANONYMOUS_SHARE: "0.1",
      DASHBOARD_ANONYMOUS_PER_MINUTE: String(BUDGET),
      ANONYMOUS_REFUSAL_DELAY_MS: "0",
    },
    {
      now: () => clock,
      dashboard: (req, res) => {
        clock += pageMs;
        res.writeHead(200, { "Content-Type": "text/html" }).end(`<!doctype html><title>${req.url}</title>`);
      },
    },
  );

  const from = (ip: string, headers: Record<string, string> = {}) => ({ "X-Forwarded-For": ip, ...headers });

  async function status(ip: string, path: string, init: RequestInit = {}): Promise<number> {
    const r = await fetch(`${app.baseUrl}${path}`, {
      ...init,
      headers: from(ip, { ...PAGE, ...(init.headers as Record<string, string>) }),
    });
    await r.body?.cancel();
    return r.status;
  }

  it("answers one client's signed-out sequence on a loaded instance, and still refuses a flood", async () => {
    clock += 100_000;
    pageMs = 800;
    const created = await app.rt.accounts.create(
      { name: "People", plan: "free", ownerEmail: "owner@people.test" },
      "test",
    );
    const token = created.invitationUrl.slice(created.invitationUrl.lastIndexOf("/") + 1);
    const ip = "203.0.113.7";
    const json = { "Content-Type": "application/json" };
    const sequence: [string, () => Promise<number>][] = [
      ["/admin/sign-in", () => status(ip, "/admin/sign-in")],
      ["/portal/sign-in", () => status(ip, "/portal/sign-in")],
      ["/", () => status(ip, "/")],
      ["/docs", () => status(ip, "/docs")],
      [
        "a 2 MB sign-in",
        () =>
          status(ip, "/api/trpc/auth.signIn", {
            method: "POST",
            headers: json,
            body: JSON.stringify({ email: "a@people.test", password: "x".repeat(2 * 1024 * 1024) }),
          }),
      ],
      ["the invitation", () => status(ip, `/portal/invitations/${token}`)],
      [
        "its acceptance",
        () =>
          status(ip, "/api/trpc/portal.acceptInvitation", {
            method: "POST",
            headers: json,
            body: JSON.stringify({ token, name: "Owner", password: PASSWORD }),
          }),
      ],
    ];
    const statuses: [string, number][] = [];
    for (const [name, request] of sequence) statuses.push([name, await request()]);
    expect(statuses).toEqual([
      ["/admin/sign-in", 200],
      ["/portal/sign-in", 200],
      ["/", 200],
      ["/docs", 200],
      ["a 2 MB sign-in", 413],
      ["the invitation", 200],
      ["its acceptance", 200],
    ]);

    // The person's pages used the share up: an address past its first few requests is refused.
    const flood = "198.51.100.66";
    for (let i = 0; i < 10; i++) await status(flood, `/api/trpc/auth.me?warm=${i}`);
    expect(await status(flood, "/docs")).toBe(429);
  });

  it("answers a page load over the address's budget with a page that reloads itself after Retry-After", async () => {
    clock += 100_000;
    pageMs = 0;
    const ip = "203.0.113.8";
    for (let i = 0; i < BUDGET; i++) expect(await status(ip, `/portal/sign-in?i=${i}`)).toBe(200);
    const refused = await fetch(`${app.baseUrl}/portal/sign-in?next=%2Fportal`, { headers: from(ip, PAGE) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const retryAfter = refused.headers.get("retry-after") ?? "";
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit-policy")).toBe(`"minute";q=${BUDGET};w=60`);
    const body = await refused.text();
    expect(body).toContain('<html lang="en">');
    expect(body).toContain("<title>Too many requests · Pet Store</title>");
    expect(refused.headers.get("refresh")).toBe(`${retryAfter}; url=/portal/sign-in?next=%2Fportal`);
    expect(body).toContain('<a href="/portal/sign-in?next=%2Fportal">try again now</a>');

    const call = await fetch(`${app.baseUrl}/api/trpc/auth.me`, { headers: from(ip, PAGE) });
    expect([call.status, call.headers.get("content-type")]).toEqual([429, "application/json; charset=utf-8"]);
    await call.body?.cancel();
  });
});
