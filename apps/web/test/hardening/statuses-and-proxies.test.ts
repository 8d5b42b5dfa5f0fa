/**
 * Issue 8 rows "Every status is JSON" and "Proxies", over HTTP against the production build: methods no route
 * serves, paths the REST app does not know, oversize headers and unparseable requests all get a JSON Error
 * body (with the request-id and limit headers when the request reached the REST app); a client-sent
 * client-IP header never buys a fresh anonymous bucket, neither behind server.ts nor under plain `next start`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, prepareDatabase, sleep, WEB_DIR } from "../instances/production-server.ts";
import { rest, useProductionApp } from "./support.ts";

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

  it("answers a 20 KB Authorization header with 431 JSON", async () => {
    const r = await rawHttp(
      app.baseUrl,
      request("GET", "/v1/pets", `Authorization: Bearer ${"a".repeat(20_000)}\r\n`),
    );
    expect(r.status).toBe(431);
    expect(r.body).toMatchObject({ code: "header_too_large", status: 431 });
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
