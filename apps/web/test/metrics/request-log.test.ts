/**
 * The per-request log line and `petstore_http_requests_total` of the REST app, in process: a status is logged
 * and counted as it was sent (a body dripped past the request timeout is answered 408 by the server, and is 408
 * in the log and the counter, not the 500 the aborted handler would have answered), and preflights and 405s
 * carry the route of their path, not `unmatched`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { getMetrics } from "../../src/server/metrics/registry.ts";
import { answerClientError } from "../../src/server/plain-responses.ts";
import { createRestFetch } from "../../src/server/rest/handler.ts";
import { collectLogLines } from "../support/log-lines.ts";
import { countRequests } from "./requests-counter.ts";

interface Line {
  msg?: string;
  route?: string;
  status?: number;
  method?: string;
  err?: unknown;
}

const { lines, sink } = collectLogLines<Line>();

let rt: Runtime;
let server: http.Server;
let port = 0;
let key = "";
let drop: () => Promise<void>;

beforeAll(async () => {
  // The process has one registry, which may hold the counts of files this worker ran before: start from zero.
  getMetrics()?.registry.resetMetrics();
  const temp = await createMigratedDatabase("petstore_request_log");
  drop = () => temp.drop();
  const config = loadConfig({ DATABASE_URL: temp.url, LOG_LEVEL: "info", ANALYTICS_ENABLED: "false" });
  rt = await openRuntime({ config, logger: createLogger("info", sink) });
  await rt.seed();
  key = (
    await rt.apiKeys.create({ name: "log", plan: "enterprise", perMinute: 10_000, perDay: 100_000 }, "test")
  ).key;
  // As server.ts: a short request timeout, checked often, and the server's own answers to what it refuses.
  server = http.createServer(
    { requestTimeout: 300, connectionsCheckingInterval: 50 },
    fetchListener(
      createRestFetch(async () => rt),
      0,
    ),
  );
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await rt?.close();
  await drop?.();
});

/** Sends `head` and part of a body, then nothing: @returns the status line the server answers with. */
function drip(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`${head}{"name":`));
    let got = "";
    socket.on("data", (d) => {
      got += d;
    });
    socket.on("close", () => resolve(got.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
  });
}

/** Waits until the request line of `route` and `status` is logged (the handler ends after the answer). */
async function logged(route: string, status: number): Promise<Line> {
  for (let i = 0; i < 250; i++) {
    const line = lines.find((l) => l.msg === "request" && l.route === route && l.status === status);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(
    `no request line ${route} ${status}: ${JSON.stringify(lines.filter((l) => l.msg === "request"))}`,
  );
}

describe("request log and counter", () => {
  it("logs and counts a body dripped past the request timeout as the 408 it was answered", async () => {
    const statusLine = await drip(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
    );
    expect(statusLine).toBe("HTTP/1.1 408 Request Timeout");
    const line = await logged("/v1/pets", 408);
    expect(line.method).toBe("POST");
    expect(await countRequests({ route: "/v1/pets", method: "POST", status: "408" })).toBe(1);
    expect(await countRequests({ status: "500" })).toBe(0);
    // The aborted body is the client's doing: no error line with a stack.
    expect(lines.filter((l) => l.msg === "unhandled error")).toEqual([]);
  });

  it("gives preflights and 405s the route of their path", async () => {
    const base = `http://127.0.0.1:${port}`;
    const preflight = await fetch(`${base}/v1/pets/123`, {
      method: "OPTIONS",
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "GET" },
    });
    await preflight.arrayBuffer();
    const notAllowed = await fetch(`${base}/v1/pets`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${key}` },
    });
    await notAllowed.arrayBuffer();
    expect(notAllowed.status).toBe(405);
    await logged("/v1/pets/:petId", preflight.status);
    await logged("/v1/pets", 405);
    expect(await countRequests({ route: "/v1/pets/:petId", method: "OPTIONS" })).toBe(1);
    expect(await countRequests({ route: "/v1/pets", method: "DELETE", status: "405" })).toBe(1);
    expect(await countRequests({ route: "unmatched" })).toBe(0);
  });
});
