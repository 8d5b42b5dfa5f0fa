/**
 * Header and ban behaviour (docs/contract.md sections 1 and 3), over HTTP against the production build: the dashboard and the API reference
 * carry a Content Security Policy (per-request nonce, no 'unsafe-eval', frame-ancestors 'none'),
 * X-Frame-Options, nosniff and Referrer-Policy, and HSTS exactly when served over HTTPS; a ban issued by the
 * rate limiter is written to the audit log with the system as actor.
 */

import { pollUntil } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { ADMIN, rest, signIn, trpc, useProductionApp } from "./support.ts";

function directives(csp: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (csp ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name, values);
  }
  return map;
}

describe("security headers (production server)", () => {
  const app = useProductionApp({ BAN_THRESHOLD: "2", BAN_BASE_SECONDS: "120" });

  it.each(["/admin/sign-in", "/admin", "/docs"])(
    "%s is not frameable and carries a strict policy",
    async (path) => {
      const r = await fetch(`${app.baseUrl}${path}`, { redirect: "manual" });
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("referrer-policy")).toBe("same-origin");
      const csp = directives(r.headers.get("content-security-policy"));
      expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
      expect(csp.get("default-src")).toEqual(["'self'"]);
      expect(csp.get("object-src")).toEqual(["'none'"]);
      expect(csp.get("base-uri")).toEqual(["'none'"]);
      const scripts = csp.get("script-src") ?? [];
      expect(scripts).not.toContain("'unsafe-eval'");
      expect(scripts).not.toContain("'unsafe-inline'");
      expect(r.headers.get("strict-transport-security")).toBeNull();
    },
  );

  it("gives every page view of the dashboard its own script nonce, used by the page's scripts", async () => {
    const nonceOf = (r: Response) =>
      /'nonce-([^']+)'/.exec(r.headers.get("content-security-policy") ?? "")?.[1];
    const [a, b] = await Promise.all([1, 2].map(() => fetch(`${app.baseUrl}/admin/sign-in`)));
    const nonce = nonceOf(a as Response);
    expect(nonce).toMatch(/^[A-Za-z0-9+/=]{16,}$/);
    expect(nonceOf(b as Response)).not.toBe(nonce);
    const html = await (a as Response).text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  });

  it("leaves the REST API to its own app (the proxy never runs there) and marks the dashboard API nosniff", async () => {
    const api = await fetch(`${app.baseUrl}/v1/openapi.json`);
    expect(api.status).toBe(200);
    expect(api.headers.get("content-security-policy")).toBeNull();
    const trpcReply = await fetch(`${app.baseUrl}/api/trpc/auth.me`);
    expect(trpcReply.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("sends HSTS when the request came over HTTPS through the trusted proxy", async () => {
    const r = await fetch(`${app.baseUrl}/admin/sign-in`, { headers: { "X-Forwarded-Proto": "https" } });
    expect(r.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}; includeSubDomains$/);
  });

  it("writes a ban to the audit log with the system as actor", async () => {
    const issued = await app.db.rt.apiKeys.create(
      { name: "to be banned", plan: "enterprise", perMinute: 1, perDay: 1000 },
      "test",
    );
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${app.baseUrl}/v1/pets?limit=1`, {
        headers: { Authorization: `Bearer ${issued.key}` },
      });
      statuses.push(r.status);
    }
    expect(statuses).toContain(429);
    const token = await signIn(app, ADMIN);
    const entry = await pollUntil(async () => {
      const r = await trpc(
        app,
        "query",
        "audit.list",
        { entityType: "apiKey", entityId: issued.id },
        { token },
      );
      const rows = (
        r.body as { result: { data: { rows: { action: string; actor: string; after: unknown }[] } } }
      ).result.data.rows;
      return rows.find((row) => row.action === "apiKey.ban");
    });
    expect(entry).toMatchObject({ actor: "system", after: { level: 1, durationSeconds: 120 } });
    const until = Date.parse((entry?.after as { bannedUntil?: string } | undefined)?.bannedUntil ?? "");
    expect(until).toBeGreaterThan(Date.now() + 60_000);
    // The REST answer agrees: banned until then.
    const banned = await rest({ ...app, key: issued.key }, "/v1/pets?limit=1");
    expect((banned.body as { code: string }).code).toBe("key_banned");
  });
});
