/**
 * What an operator sees of the production server (`node dist/server.js` over `next build`) with
 * PETSTORE_ENV=production: every line of its stdout is JSON (start-up, requests, shutdown), the start says
 * where it listens in a log line, and a page, a tRPC call, the API reference and a preflight each produce one
 * `request` line with their route (the page's route pattern, the procedure) and a sample in /metrics.
 */
import net from "node:net";
import { eventually } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { useProductionApp } from "../hardening/support.ts";

const TOKEN = "metrics-token-0123456789abcdef";

interface Line {
  msg?: string;
  route?: string;
  method?: string;
  status?: number;
}

/** Every line of `text` parsed as JSON (throws on the first that is not). */
const jsonLines = (text: string): Line[] =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Line;
      } catch {
        throw new Error(`stdout line is not JSON: ${line}`);
      }
    });

describe("the production server's stdout and metrics", () => {
  const app = useProductionApp({ PETSTORE_ENV: "production", METRICS_TOKEN: TOKEN, LOG_LEVEL: "info" });

  it("logs and counts a page, a tRPC call, /docs and a preflight under their routes, in JSON only", async () => {
    const port = app.server.port;
    const requests: [path: string, init: RequestInit, route: string][] = [
      ["/admin/keys/123", {}, "/admin/keys/[id]"],
      ["/api/trpc/auth.me", {}, "trpc:auth.me"],
      ["/docs", {}, "/docs"],
      [
        "/admin/sign-in",
        {
          method: "OPTIONS",
          headers: { Origin: "https://elsewhere.example", "Access-Control-Request-Method": "POST" },
        },
        "/admin/sign-in",
      ],
    ];
    for (const [path, init, route] of requests) {
      const answer = await fetch(`${app.baseUrl}${path}`, { ...init, redirect: "manual" });
      await answer.arrayBuffer();
      const method = init.method ?? "GET";
      const logged = await eventually(async () => {
        const found = jsonLines(app.server.stdout()).filter((l) => l.msg === "request" && l.route === route);
        expect(found).toHaveLength(1);
        return found;
      });
      expect(logged[0]).toMatchObject({ method, status: answer.status });
    }

    // A request the server cannot read: answered by the server itself on the socket, logged and counted too.
    const refused = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () =>
        socket.write("GET / HTTP/1.1\r\nBad Header\r\n\r\n"),
      );
      let got = "";
      socket.on("data", (d) => {
        got += d;
      });
      socket.on("close", () => resolve(got.split("\r\n")[0] ?? ""));
      socket.on("error", reject);
    });
    expect(refused).toBe("HTTP/1.1 400 Bad Request");
    await eventually(async () =>
      expect(
        jsonLines(app.server.stdout()).filter((l) => l.msg === "request" && l.route === "unmatched"),
      ).toMatchObject([{ status: 400 }]),
    );

    const scrape = await fetch(`${app.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const text = await scrape.text();
    for (const [, init, route] of requests)
      expect(text).toContain(
        `petstore_http_requests_total{route="${route}",method="${init.method ?? "GET"}"`,
      );
    expect(text).not.toMatch(/route="\/admin\/keys\/123"/);
    expect(text).toContain('petstore_http_requests_total{route="unmatched",method="other",status="400"} 1');

    const lines = jsonLines(app.server.stdout());
    expect(lines.some((l) => l.msg?.startsWith(`Listening on port ${port}`))).toBe(true);
    expect(lines.some((l) => l.msg?.startsWith("Pet Store is serving on"))).toBe(true);

    await app.server.stop();
    // The shutdown's lines too.
    expect(jsonLines(app.server.stdout()).some((l) => l.msg === "shutdown")).toBe(true);
  });
});
