/**
 * The /metrics handler itself (src/server/metrics/endpoint.ts), with requests as the Node server hands them over
 * (the client address stamped, client-ip.ts) and an injected clock: who may scrape without a token (loopback
 * only, unless METRICS_PUBLIC or a token), and that a scrape is rendered at most once a second, one render shared
 * by every scrape that comes while it is under way. Through the whole in-process app: anonymous-floods.test.ts.
 */
import type { Config } from "@petstore/config";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLIENT_IP_HEADER, TRUSTED_HOPS_HEADER } from "../../src/server/client-ip.ts";
import { metricsEndpoint, SCRAPE_REUSE_MS } from "../../src/server/metrics/endpoint.ts";
import { getMetrics } from "../../src/server/metrics/registry.ts";

const TOKEN = "metrics-token-0123456789abcdef";

/** A GET /metrics as the server stamps it: from client `ip` past `hops` trusted proxies, with `headers`. */
function scrapeRequest(ip: string, headers: Record<string, string> = {}, hops = 0): Request {
  return new Request("http://instance.example/metrics", {
    headers: { [CLIENT_IP_HEADER]: ip, [TRUSTED_HOPS_HEADER]: String(hops), ...headers },
  });
}

/** The endpoint with `settings`, no runtime (no scrape budget: the in-process tests count it) and clock `now`. */
const endpoint = (settings: Partial<Config["metrics"]>, now: () => number = () => 0) =>
  metricsEndpoint({ enabled: true, public: false, ...settings }, async () => undefined, undefined, now);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("who may scrape /metrics", () => {
  it("without a token, serves loopback clients and refuses every other address with a JSON 403", async () => {
    const scrape = endpoint({});
    for (const ip of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) {
      const r = await scrape(scrapeRequest(ip));
      expect(r.status, ip).toBe(200);
      expect(await r.text(), ip).toMatch(/^# HELP /m);
    }
    for (const ip of ["203.0.113.5", "10.0.0.1", "192.168.1.2", "::2", "fd00::1", "0.0.0.0", "unknown"]) {
      const r = await scrape(scrapeRequest(ip));
      expect(r.status, ip).toBe(403);
      expect(r.headers.get("cache-control"), ip).toBe("no-store");
      expect(await r.json(), ip).toMatchObject({ code: "forbidden", status: 403 });
    }
  });

  it("refuses a loopback client whose request names a client no trusted proxy vouched for (a proxy on the host)", async () => {
    const scrape = endpoint({});
    const forwarded: Record<string, string>[] = [
      { "x-forwarded-for": "203.0.113.9" },
      { forwarded: "for=203.0.113.9" },
    ];
    for (const headers of forwarded) {
      expect((await scrape(scrapeRequest("127.0.0.1", headers))).status).toBe(403);
    }
    // A trusted proxy that says the client is on loopback is believed.
    expect((await scrape(scrapeRequest("127.0.0.1", { "x-forwarded-for": "127.0.0.1" }, 1))).status).toBe(
      200,
    );
  });

  it("with METRICS_PUBLIC=true, serves every address", async () => {
    const r = await endpoint({ public: true })(scrapeRequest("203.0.113.5"));
    expect(r.status).toBe(200);
  });

  it("with METRICS_TOKEN, serves every address that sends it, and none that does not", async () => {
    const scrape = endpoint({ token: TOKEN });
    expect((await scrape(scrapeRequest("203.0.113.5", { authorization: `Bearer ${TOKEN}` }))).status).toBe(
      200,
    );
    for (const ip of ["203.0.113.5", "127.0.0.1"]) {
      const r = await scrape(scrapeRequest(ip));
      expect(r.status, ip).toBe(401);
      expect(await r.json(), ip).toMatchObject({ code: "unauthorized" });
    }
  });
});

describe("rendering a scrape", () => {
  it("renders at most once per second by the injected clock; concurrent scrapes share one render", async () => {
    const metrics = getMetrics();
    if (!metrics) throw new Error("metrics are off in this test process");
    const real = metrics.registry.metrics.bind(metrics.registry);
    let release: () => void = () => {};
    let gate: Promise<void> | undefined;
    let renders = 0;
    vi.spyOn(metrics.registry, "metrics").mockImplementation(async () => {
      renders++;
      const text = `${await real()}# render ${renders}\n`;
      await gate;
      return text;
    });
    let now = 10_000;
    const scrape = endpoint({}, () => now);
    const text = async () => (await scrape(scrapeRequest("127.0.0.1"))).text();

    // Twenty scrapes while the first render is held, the clock moving past a second meanwhile: one render.
    gate = new Promise((resolve) => {
      release = resolve;
    });
    const pending = Array.from({ length: 10 }, text);
    await new Promise((resolve) => setImmediate(resolve));
    expect(renders).toBe(1);
    now += SCRAPE_REUSE_MS + 500;
    pending.push(...Array.from({ length: 10 }, text));
    release();
    const bodies = await Promise.all(pending);
    expect(renders).toBe(1);
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]).toMatch(/# render 1$/m);

    // Once done: reused until a second after it started, then rendered again.
    gate = undefined;
    now = 20_000;
    expect(await text()).toMatch(/# render 2$/m);
    now += SCRAPE_REUSE_MS - 1;
    expect(await text()).toMatch(/# render 2$/m);
    now += 1;
    expect(await text()).toMatch(/# render 3$/m);
    expect(renders).toBe(3);
  });

  it("renders again on the next scrape after a render failed", async () => {
    const metrics = getMetrics();
    if (!metrics) throw new Error("metrics are off in this test process");
    const spy = vi.spyOn(metrics.registry, "metrics").mockRejectedValueOnce(new Error("collector failed"));
    const scrape = endpoint({}, () => 50_000);
    await expect(scrape(scrapeRequest("127.0.0.1"))).rejects.toThrow("collector failed");
    expect((await scrape(scrapeRequest("127.0.0.1"))).status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(2);
  });
});
