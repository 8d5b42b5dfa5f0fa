/**
 * GET /healthz, /readyz and /metrics on the production server are answered by server.ts itself, not through
 * Next's router (src/server/ops/handler.ts): same statuses and bodies as the Next routes, with
 * `Cache-Control: no-store`, and without the `Vary: rsc, …` Next's router adds. HEAD too (a load balancer's probe
 * may use it); other methods stay with Next.
 */
import { describe, expect, it } from "vitest";
import { useProductionApp } from "./support.ts";

describe("operational endpoints without Next's router (production server)", () => {
  const app = useProductionApp();

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

  it("leaves other methods to Next, which refuses them", async () => {
    const post = await fetch(`${app.baseUrl}/healthz`, { method: "POST" });
    expect(post.status).toBe(405);
  });
});
