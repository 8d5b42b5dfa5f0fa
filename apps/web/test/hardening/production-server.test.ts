/**
 * What needs the deployed process, against the production build (`node dist/server.js` over `next build`), with
 * the servers of this file started side by side once:
 * - the probes and /metrics are answered by server.ts itself, not through Next's router
 *   (src/server/ops/handler.ts): `Cache-Control: no-store`, without the `Vary: rsc, …` Next's router adds, from
 *   the very first answer on; HEAD too; other methods get a JSON 405;
 * - every status is JSON (docs/contract.md section 1): methods no route serves, paths the REST app does not know,
 *   oversize headers, unparseable or unreadable request targets all get a JSON Error body with a request id (and
 *   the limit headers when the request reached the REST app); an absolute-form target is answered for this
 *   server's own path, never redirected; Next's 404 pages under the prefixes the page proxy skips still carry
 *   the security headers;
 * - the dashboard and the API reference carry a Content Security Policy (per-request nonce, no 'unsafe-eval',
 *   frame-ancestors 'none'), X-Frame-Options, nosniff and Referrer-Policy, and HSTS exactly when served over
 *   HTTPS;
 * - start-up refuses production without METRICS_TOKEN unless metrics are off, and with them off /metrics is 404;
 * - the 429 of an address over an anonymous budget is held before it is answered (ANONYMOUS_REFUSAL_DELAY_MS), in
 *   every place such budgets apply and in the API role as deployed, while a real key from the same address is
 *   answered at once.
 */
import http from "node:http";
import net from "node:net";
import { clearOfBoundary, sleep } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { startProductionServer } from "../instances/production-server.ts";
import { freePort } from "../support/common.ts";
import { rest, useProductionApps } from "./support.ts";

// Long enough that a held refusal stands apart from an answer slowed by a busy machine.
const DELAY_MS = 1200;
const TOKEN = "metrics-token-0123456789abcdef";
const budgets = {
  ANONYMOUS_PER_MINUTE: "2",
  DASHBOARD_ANONYMOUS_PER_MINUTE: "2",
  METRICS_SCRAPES_PER_MINUTE: "2",
  ANONYMOUS_REFUSAL_DELAY_MS: String(DELAY_MS),
  METRICS_TOKEN: TOKEN,
};

/** Sends `raw` bytes over one connection; resolves with what the server answered before closing. */
async function rawHttp(
  baseUrl: string,
  raw: string,
): Promise<{ status: number; headers: string; body: unknown }> {
  const { port } = new URL(baseUrl);
  const socket = net.connect(Number(port), "127.0.0.1");
  socket.write(raw);
  let text = "";
  socket.setTimeout(5_000, () => socket.destroy());
  for await (const chunk of socket) {
    text += chunk.toString();
    const [head, body] = text.split("\r\n\r\n");
    const length = Number(/content-length: (\d+)/i.exec(head ?? "")?.[1]);
    if (body !== undefined && body.length >= length) {
      socket.destroy();
      break;
    }
  }
  const [head = "", body = ""] = text.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), headers: head, body: JSON.parse(body) };
}

const request = (method: string, path: string, extra = "") =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}Connection: close\r\n\r\n`;

/** `method path` uncompressed, read with node:http (the headers as sent): status, framing headers, body bytes. */
function framing(
  baseUrl: string,
  method: string,
  path: string,
): Promise<{ status: number; contentLength?: string; transferEncoding?: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, baseUrl),
      { method, headers: { "accept-encoding": "identity" } },
      (res) => {
        let bytes = 0;
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentLength: res.headers["content-length"],
            transferEncoding: res.headers["transfer-encoding"],
            bytes,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function directives(csp: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (csp ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name, values);
  }
  return map;
}

describe("the production server", () => {
  const apps = useProductionApps({
    main: { ANONYMOUS_PER_MINUTE: "1000" },
    all: budgets,
    api: { ...budgets, PETSTORE_SERVE: "api" },
    metricsOff: { PETSTORE_ENV: "production", METRICS_ENABLED: "false" },
  });

  describe("operational endpoints without Next's router", () => {
    const app = apps.main;

    it("answers the probes and the scrape directly", async () => {
      const health = await fetch(`${app.baseUrl}/healthz?probe=1`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
      const ready = await fetch(`${app.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: "ok", checks: { database: { ok: true } } });
      const metrics = await fetch(`${app.baseUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain("# TYPE ");
      for (const r of [health, ready, metrics]) {
        expect(r.headers.get("cache-control")).toBe("no-store");
        expect(r.headers.get("vary")).toBeNull();
      }
    });

    it("answers even the first request after it starts listening without Next's router", () => {
      // The server listens only once Next's start-up hook has published the handlers; a request routed by Next
      // would carry Next's `Vary: rsc, …` and switch on its AsyncLocalStorage hooks for the whole process.
      expect(app.server.firstAnswerHeaders.get("cache-control")).toBe("no-store");
      expect(app.server.firstAnswerHeaders.get("vary")).toBeNull();
    });

    it("answers HEAD probes directly too, with the GET's status and headers and no body", async () => {
      for (const path of ["/healthz", "/readyz"]) {
        const head = await fetch(`${app.baseUrl}${path}`, { method: "HEAD" });
        expect(head.status).toBe(200);
        expect(head.headers.get("content-type")).toMatch(/^application\/json/);
        expect(head.headers.get("cache-control")).toBe("no-store");
        expect(head.headers.get("vary")).toBeNull();
        expect(await head.text()).toBe("");
      }
    });

    it("answers HEAD of a dashboard page with the GET's framing: its Content-Length, or none when the GET streams", async () => {
      for (const path of ["/admin/sign-in", "/docs"]) {
        const get = await framing(app.baseUrl, "GET", path);
        const head = await framing(app.baseUrl, "HEAD", path);
        expect(head.status, path).toBe(get.status);
        expect(head.bytes, path).toBe(0);
        if (get.contentLength === undefined) {
          // Streamed (chunked): its length is known only once the page is rendered, and RFC 9110 section 9.3.2
          // lets a HEAD leave out what is determined only while generating the content.
          expect(get.transferEncoding, path).toBe("chunked");
          expect(head.contentLength, path).toBeUndefined();
        } else {
          expect(get.contentLength, path).toBe(String(get.bytes));
          expect(head.contentLength, path).toBe(get.contentLength);
        }
      }
    });

    it("leaves other methods to Next, which refuses them", async () => {
      const post = await fetch(`${app.baseUrl}/healthz`, { method: "POST" });
      expect(post.status).toBe(405);
    });
  });

  describe("every status is JSON", () => {
    const app = apps.main;

    it("answers TRACE and unknown-but-parsed methods under /v1 with 405 JSON, Allow and the app's headers", async () => {
      for (const method of ["TRACE", "PROPFIND"]) {
        const r = await rawHttp(app.baseUrl, request(method, "/v1/pets"));
        expect(r.status).toBe(405);
        expect(r.body).toMatchObject({ code: "method_not_allowed", status: 405 });
        expect(r.headers).toMatch(/^allow: GET, HEAD, POST$/im);
        expect(r.headers).toMatch(/^x-request-id: \S+$/im);
        expect(r.headers).toMatch(/^x-ratelimit-limit: 1000$/im);
      }
    });

    it("answers TRACE elsewhere with 405 JSON, CONNECT with 405 JSON and a method no parser knows with 501 JSON", async () => {
      const trace = await rawHttp(app.baseUrl, request("TRACE", "/admin"));
      expect(trace.status).toBe(405);
      expect(trace.headers).toMatch(/^allow: /im);
      expect(trace.body).toMatchObject({ code: "method_not_allowed" });
      const connect = await rawHttp(app.baseUrl, request("CONNECT", "example.com:443"));
      expect(connect.status).toBe(405);
      expect(connect.body).toMatchObject({ code: "method_not_allowed" });
      const unknown = await rawHttp(app.baseUrl, request("FROBNICATE", "/v1/pets"));
      expect(unknown.status).toBe(501);
      expect(unknown.body).toMatchObject({ code: "not_implemented", status: 501 });
    });

    it("answers a trailing or double slash under /v1 with 404 JSON (no redirect) and the app's headers", async () => {
      for (const path of ["/v1/pets/", "/v1//pets", "/v1/pets//1"]) {
        const r = await rest(app, path, { redirect: "manual" });
        expect(r.status, path).toBe(404);
        expect(r.body).toMatchObject({ code: "not_found", status: 404 });
        expect(r.headers.get("x-request-id")).toBeTruthy();
        expect(r.headers.get("x-ratelimit-limit")).toBe("100000");
      }
    });

    it("answers a 20 KB Authorization header with 431 JSON and a request id", async () => {
      const r = await rawHttp(
        app.baseUrl,
        request("GET", "/v1/pets", `Authorization: Bearer ${"a".repeat(20_000)}\r\n`),
      );
      expect(r.status).toBe(431);
      expect(r.body).toMatchObject({ code: "header_too_large", status: 431 });
      expect(r.headers).toMatch(/^x-request-id: \S+$/im);
    });

    it("answers OPTIONS * with the methods it serves, as JSON", async () => {
      const r = await rawHttp(app.baseUrl, request("OPTIONS", "*"));
      expect(r.status).toBe(200);
      expect(r.headers).toMatch(/^content-type: application\/json/im);
      expect(r.headers).toMatch(/^allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS$/im);
      expect(r.body).toEqual({ allow: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] });
    });

    it("answers an unreadable target and a request without Host with 400 JSON", async () => {
      const broken = await rawHttp(app.baseUrl, request("GET", "/admin/%ZZ"));
      expect(broken.status).toBe(400);
      expect(broken.body).toMatchObject({ code: "invalid_request", status: 400 });
      expect(broken.headers).toMatch(/^x-request-id: \S+$/im);
      const hostless = await rawHttp(app.baseUrl, "GET /v1/pets HTTP/1.1\r\nConnection: close\r\n\r\n");
      expect(hostless.status).toBe(400);
      expect(hostless.body).toMatchObject({ code: "invalid_request", status: 400 });
    });

    it("answers other methods on the probes and /metrics with 405 JSON", async () => {
      for (const path of ["/healthz", "/readyz", "/metrics"]) {
        const r = await rawHttp(app.baseUrl, request("POST", path, "Content-Length: 0\r\n"));
        expect(r.status, path).toBe(405);
        expect(r.body).toMatchObject({ code: "method_not_allowed", status: 405 });
        expect(r.headers).toMatch(/^allow: GET, HEAD$/im);
      }
    });

    it("answers an absolute-form target for its own path, never redirecting to the named host", async () => {
      const r = await rawHttp(app.baseUrl, request("GET", "http://evil.example/v1/pets"));
      expect(r.status).toBe(401);
      expect(r.headers).not.toMatch(/^location:/im);
      expect(r.body).toMatchObject({ code: "unauthorized" });
    });

    it("answers 404 pages under the prefixes the page proxy skips with the security headers", async () => {
      for (const path of ["/api/nothing", "/healthzz", "/vendor/missing.js", "/metrics/extra"]) {
        const page = await fetch(`${app.baseUrl}${path}`);
        expect(page.status, path).toBe(404);
        expect(page.headers.get("x-frame-options"), path).toBe("DENY");
        expect(page.headers.get("x-content-type-options"), path).toBe("nosniff");
        expect(page.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      }
    });

    it("sends nosniff with every /v1 answer, errors that echo the path included", async () => {
      const r = await rest(app, "/v1/<script>alert(1)</script>");
      expect(r.status).toBe(404);
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    });
  });

  describe("security headers of the pages", () => {
    const app = apps.main;

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
  });

  describe("start-up in production", () => {
    it("will not start in production without a token, unless metrics are off (then /metrics is a JSON 404)", async () => {
      const refused = startProductionServer(await freePort(), {
        DATABASE_URL: apps.main.db.url,
        PETSTORE_ENV: "production",
      });
      await expect(refused).rejects.toThrow(/METRICS_TOKEN/);
      const off = apps.metricsOff;
      const v1 = await fetch(`${off.baseUrl}/v1/pets?limit=1`);
      expect(v1.status).toBe(401);
      const metrics = await fetch(`${off.baseUrl}/metrics`);
      expect(metrics.status).toBe(404);
      expect(await metrics.json()).toMatchObject({ code: "not_found" });
      expect(metrics.headers.get("cache-control")).toBe("no-store");
    });
  });

  describe("refusals of an address over an anonymous budget", () => {
    const all = apps.all;
    const api = apps.api;

    /** Status and milliseconds of one request from `ip`. */
    async function timed(url: string, ip: string, headers: Record<string, string> = {}) {
      const started = performance.now();
      const r = await fetch(url, { headers: { ...headers, "x-forwarded-for": ip } });
      await r.body?.cancel();
      return { status: r.status, ms: performance.now() - started, retryAfter: r.headers.get("retry-after") };
    }

    it.each([
      ["/v1 without a key", () => all, "/v1/pets", {}],
      ["/metrics", () => all, "/metrics", { authorization: `Bearer ${TOKEN}` }],
      ["the dashboard without a session", () => all, "/api/trpc/auth.me", {}],
      ["a dashboard path on an API-only instance", () => api, "/api/trpc/auth.me", {}],
    ] as const)(
      "are held for the delay on %s, concurrent ones side by side",
      async (_, app, path, headers) => {
        await clearOfBoundary(60_000, 5_000);
        const ip = `203.0.113.${80 + Math.floor(Math.random() * 100)}`;
        const url = `${app().baseUrl}${path}`;
        // From another address: the path's first answer (Next loading the route) is not what is measured.
        await timed(url, `198.51.100.${Math.floor(Math.random() * 250)}`, headers);
        const first = [await timed(url, ip, headers), await timed(url, ip, headers)];
        for (const r of first) expect(r.status).not.toBe(429);
        for (const r of first) expect(r.ms).toBeLessThan(DELAY_MS - 100);
        const refused = await Promise.all(Array.from({ length: 20 }, () => timed(url, ip, headers)));
        for (const r of refused) {
          expect(r.status).toBe(429);
          expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
          expect(r.ms).toBeGreaterThanOrEqual(DELAY_MS - 50);
          // Held side by side, not one after another.
          expect(r.ms).toBeLessThan(3 * DELAY_MS);
        }
      },
    );

    it("answer a real key from the same address at once meanwhile", async () => {
      await clearOfBoundary(60_000, 5_000);
      const ip = "203.0.113.79";
      const key = { authorization: `Bearer ${api.key}` };
      expect((await timed(`${api.baseUrl}/v1/pets`, ip, key)).status).toBe(200);
      const held = Promise.all(Array.from({ length: 10 }, () => timed(`${api.baseUrl}/v1/pets`, ip)));
      await sleep(DELAY_MS / 4);
      const real = await timed(`${api.baseUrl}/v1/pets`, ip, key);
      expect(real.status).toBe(200);
      expect(real.ms).toBeLessThan(DELAY_MS - 100);
      expect((await held).filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(8);
    });
  });
});
