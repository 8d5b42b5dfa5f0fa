/**
 * The client address the Node mount stamps (src/server/client-ip.ts) survives @hono/node-server rebuilding a
 * request's headers: after the body is read and the headers are listed, the REST app still sees the socket
 * address, never a client-sent `x-petstore-client-ip`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "../../src/server/client-ip.ts";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";

let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  // A stand-in for the REST app that reads the body first, then lists every header (which materialises them).
  const fetch = async (request: Request) => {
    const body = await request.text();
    const seen = [...request.headers].filter(([name]) => name === CLIENT_IP_HEADER).map(([, v]) => v);
    return new Response(JSON.stringify({ body, seen, get: request.headers.get(CLIENT_IP_HEADER) }));
  };
  server = http.createServer(fetchListener(fetch, 0));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("client address stamp", () => {
  it("replaces a client-sent copy, also once the headers are rebuilt after the body was read", async () => {
    const response = await fetch(`${baseUrl}/v1/pets`, {
      method: "POST",
      headers: { [CLIENT_IP_HEADER]: "203.0.113.9", "content-type": "application/json" },
      body: '{"name":"Rex"}',
    });
    expect(await response.json()).toEqual({ body: '{"name":"Rex"}', seen: ["127.0.0.1"], get: "127.0.0.1" });
  });

  it("stamps requests that sent no copy", async () => {
    const response = await fetch(`${baseUrl}/v1/pets`, { method: "POST", body: "x" });
    expect(await response.json()).toMatchObject({ seen: ["127.0.0.1"] });
  });
});
