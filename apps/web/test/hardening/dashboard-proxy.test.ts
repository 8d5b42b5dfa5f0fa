/**
 * The proxy from server.ts to the dashboard process (src/server/http/dashboard-proxy.ts), between real node:http
 * servers: an upstream on a unix socket in a temporary folder (standing for Next) and a front server (standing
 * for server.ts). Requests and answers pass end to end without their hop-by-hop headers, the front server's
 * keep-alive decision holds (a draining server's `Connection: close`), HEAD works, answers stream, a client
 * that leaves ends the upstream request, and an upstream that is down or silent gets the `unavailable` answer.
 */
import fs from "node:fs";
import http, { type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboardProxy } from "../../src/server/http/dashboard-proxy.ts";

const IDLE_MS = 300;

/** A GET or HEAD through the front server: status, headers and body. */
function request(
  port: number,
  target: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { port, host: "127.0.0.1", path: target, method: options.method ?? "GET", headers: options.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the dashboard proxy", () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-proxy-test-"));
  const socketPath = path.join(folder, "upstream.sock");
  let release: (() => void) | undefined;
  let upstreamClosed: Promise<void> | undefined;
  const upstream = http.createServer((req, res) => {
    if (req.url === "/headers") {
      const body = JSON.stringify(req.headers);
      res.writeHead(200, {
        "Content-Type": "application/json",
        "Content-Length": String(Buffer.byteLength(body)),
        Connection: "keep-alive",
        "Keep-Alive": "timeout=77",
        "X-Frame-Options": "SAMEORIGIN",
        "X-Upstream": "next",
      });
      res.end(req.method === "HEAD" ? undefined : body);
    } else if (req.url === "/stream") {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.write("first;");
      release = () => res.end("second");
    } else if (req.url === "/left") {
      upstreamClosed = new Promise((resolve) => res.once("close", () => resolve()));
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.write("started;");
    }
    // "/silent": never answered.
  });
  let unavailable = 0;
  const proxy = createDashboardProxy({
    socketPath,
    idleTimeoutMs: IDLE_MS,
    unavailable: (_req, res) => {
      unavailable++;
      res.writeHead(503, { "Retry-After": "5", "Content-Type": "text/plain" }).end("unavailable");
    },
  });
  let draining = false;
  const front = http.createServer((req: IncomingMessage, res) => {
    if (draining) res.shouldKeepAlive = false;
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("X-Front", "set before");
    proxy.web(req, res);
  });
  let port = 0;

  beforeAll(async () => {
    await new Promise<void>((resolve) => upstream.listen(socketPath, resolve));
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    port = (front.address() as AddressInfo).port;
  });

  afterAll(async () => {
    proxy.close();
    front.closeAllConnections();
    upstream.closeAllConnections();
    await new Promise((resolve) => front.close(resolve));
    await new Promise((resolve) => upstream.close(resolve));
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it("passes headers end to end, never the hop-by-hop ones, and the answer's own headers win", async () => {
    const r = await request(port, "/headers", {
      headers: {
        Connection: "keep-alive, X-Hop",
        "X-Hop": "1",
        "Keep-Alive": "timeout=9",
        "X-Forwarded-For": "203.0.113.7",
        Cookie: "petstore_session=abc",
      },
    });
    expect(r.status).toBe(200);
    const seen = JSON.parse(r.body);
    expect(seen).toMatchObject({ "x-forwarded-for": "203.0.113.7", cookie: "petstore_session=abc" });
    expect(seen).not.toHaveProperty("x-hop");
    expect(seen).not.toHaveProperty("keep-alive");
    expect(r.headers["x-upstream"]).toBe("next");
    expect(r.headers["x-front"]).toBe("set before");
    expect(r.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(r.headers["keep-alive"]).not.toBe("timeout=77");
  });

  it("keeps the front server's decision to close the connection", async () => {
    draining = true;
    try {
      const r = await request(port, "/headers");
      expect(r.status).toBe(200);
      expect(r.headers.connection).toBe("close");
    } finally {
      draining = false;
    }
  });

  it("answers HEAD with the headers and no body", async () => {
    const r = await request(port, "/headers", { method: "HEAD" });
    expect(r.status).toBe(200);
    expect(r.headers["x-upstream"]).toBe("next");
    expect(r.body).toBe("");
  });

  it("streams an answer as the upstream writes it", async () => {
    const first = await new Promise<string>((resolve, reject) => {
      const req = http.get({ port, host: "127.0.0.1", path: "/stream" }, (res) => {
        res.setEncoding("utf8");
        let body = "";
        res.on("data", (chunk: string) => {
          body += chunk;
          if (body === "first;") {
            resolve(body);
            release?.();
          }
        });
      });
      req.on("error", reject);
    });
    expect(first).toBe("first;");
  });

  it("ends the upstream request when the client leaves", async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ port, host: "127.0.0.1", path: "/left" }, (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", () => {});
      req.on("timeout", reject);
    });
    await expect(upstreamClosed).resolves.toBeUndefined();
  });

  it("answers `unavailable` when the upstream gives no sign of life within the bound", async () => {
    const before = unavailable;
    const r = await request(port, "/silent");
    expect(r.status).toBe(503);
    expect(r.headers["retry-after"]).toBe("5");
    expect(unavailable).toBe(before + 1);
  });

  it("answers `unavailable` when nothing listens on the socket", async () => {
    const gone = createDashboardProxy({
      socketPath: path.join(folder, "nobody.sock"),
      idleTimeoutMs: IDLE_MS,
      unavailable: (_req, res) => res.writeHead(503, { "Retry-After": "5" }).end(),
    });
    const server = http.createServer((req, res) => gone.web(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const r = await request((server.address() as AddressInfo).port, "/admin");
      expect(r.status).toBe(503);
      expect(r.headers["retry-after"]).toBe("5");
    } finally {
      gone.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
