/**
 * Every status is JSON, and proxies cannot lie about the client, over HTTP against the production build
 * (docs/contract.md section 1): methods no route serves, paths the REST app does not know, oversize headers,
 * unparseable or unreadable request targets, and other methods on the probes all get a JSON Error body with a
 * request id (and the limit headers when the request reached the REST app); an absolute-form target is answered
 * for this server's own path, never redirected; pages under excluded prefixes still carry the security headers; a
 * client-sent client-IP header never buys a fresh anonymous bucket, neither behind server.ts nor under plain
 * `next start`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import net from "node:net";
import { sleep } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { prepareDatabase, WEB_DIR } from "../instances/production-server.ts";
import { freePort } from "../support/common.ts";
import { rest, STAFF, signIn, trpc, trpcBatch, useProductionApp } from "./support.ts";

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

describe("every status is JSON (production server)", () => {
  const app = useProductionApp({ ANONYMOUS_PER_MINUTE: "1000" });

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

describe("client address behind server.ts", () => {
  const app = useProductionApp({ ANONYMOUS_PER_MINUTE: "3" });

  it("ignores a client-sent x-petstore-client-ip: rotating it does not escape the anonymous limit", async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 5; n++)
      statuses.push(
        await fetch(`${app.baseUrl}/v1/pets`, { headers: { "x-petstore-client-ip": `1.2.3.${n}` } }).then(
          async (r) => {
            await r.arrayBuffer();
            return r.status;
          },
        ),
      );
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

const NEXT_BIN = createRequire(import.meta.url).resolve("next/dist/bin/next");

/** `next start` (no custom server) on a fresh database; resolves once it answers or exits. */
async function nextStart(env: Record<string, string>) {
  const db = await prepareDatabase("petstore_nextstart");
  const port = await freePort();
  let output = "";
  const child: ChildProcess = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
    cwd: WEB_DIR,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      DATABASE_URL: db.url,
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
  let exited: number | null | undefined;
  void exit.then((code) => {
    exited = code;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600 && exited === undefined; i++) {
    const ok = await fetch(`${baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await sleep(100);
  }
  return {
    baseUrl,
    exited: () => exited,
    output: () => output,
    async stop() {
      if (exited === undefined) child.kill("SIGTERM");
      await exit;
      await db.drop();
    },
  };
}

describe("client address under plain `next start`", () => {
  it("refuses to start without TRUST_PROXY (it could not tell clients apart)", async () => {
    const server = await nextStart({});
    try {
      for (let i = 0; i < 100 && server.exited() === undefined; i++) {
        await fetch(`${server.baseUrl}/healthz`).catch(() => undefined);
        await sleep(100);
      }
      expect(server.exited()).toBe(1);
      expect(server.output()).toMatch(/TRUST_PROXY/);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("with TRUST_PROXY keys the anonymous limit on the proxy's X-Forwarded-For hop, never on x-petstore-client-ip", async () => {
    const server = await nextStart({ TRUST_PROXY: "1", ANONYMOUS_PER_MINUTE: "3" });
    try {
      const statuses: number[] = [];
      for (let n = 0; n < 5; n++) {
        const r = await fetch(`${server.baseUrl}/v1/pets`, {
          headers: { "x-petstore-client-ip": `1.2.3.${n}`, "x-forwarded-for": "203.0.113.7" },
        });
        await r.arrayBuffer();
        statuses.push(r.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const other = await fetch(`${server.baseUrl}/v1/pets`, {
        headers: { "x-forwarded-for": "203.0.113.8" },
      });
      expect(other.status).toBe(401);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe("tRPC errors carry their code of the closed set (production server)", () => {
  const app = useProductionApp();

  it("sets appCode on tRPC's own refusals: not signed in, not allowed, unknown procedure, unparseable input, long batch", async () => {
    const appCode = (r: { body: unknown }) =>
      (r.body as { error?: { data?: { appCode?: string } } }).error?.data?.appCode;
    expect(appCode(await trpc(app, "query", "apiKeys.list", undefined))).toBe("unauthorized");
    const token = await signIn(app, STAFF);
    expect(appCode(await trpc(app, "query", "apiKeys.list", undefined, { token }))).toBe("forbidden");
    expect(appCode(await trpc(app, "query", "nothing.here", undefined))).toBe("not_found");
    const unparseable = await fetch(`${app.baseUrl}/api/trpc/auth.signIn`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    const body = await unparseable.json();
    expect(body.error.data.appCode).toBe("invalid_request");
    expect(unparseable.headers.get("x-request-id")).toBeTruthy();
    const batch = await trpcBatch(
      app,
      Array.from({ length: 11 }, () => ({ path: "auth.signOut", input: undefined })),
    );
    const first = Array.isArray(batch.body) ? batch.body[0] : batch.body;
    expect((first as { error?: { data?: { appCode?: string } } }).error?.data?.appCode).toBe(
      "invalid_request",
    );
  });
});
