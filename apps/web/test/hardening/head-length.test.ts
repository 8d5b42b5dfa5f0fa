/**
 * A HEAD is answered with the headers the GET would carry, Content-Length included (RFC 9110 section 9.3.2), on
 * /v1 and on the operational endpoints, over HTTP against the app served in process behind server.ts's router
 * (in-process.ts). Read with node:http, which shows the headers as sent. A HEAD is never compressed
 * (content-coding.ts), so the GETs compared are uncompressed too.
 */
import http from "node:http";
import { describe, expect, it } from "vitest";
import { useInProcessApp } from "./in-process.ts";

/** `method path` with `headers`: the status, the headers as sent and the body's byte count. */
function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(path, baseUrl), { method, headers }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes }),
      );
    });
    request.on("error", reject);
    request.end();
  });
}

describe("HEAD", () => {
  const app = useInProcessApp();

  it("carries the Content-Length the GET would", async () => {
    const auth = { authorization: `Bearer ${app.key}`, "accept-encoding": "identity" };
    for (const path of [
      "/v1/pets?limit=2",
      "/v1/pets/1",
      "/v1/openapi.json",
      "/v1/nowhere",
      "/healthz",
      "/readyz",
    ]) {
      const get = await send(app.baseUrl, "GET", path, auth);
      const head = await send(app.baseUrl, "HEAD", path, auth);
      expect(head.status, path).toBe(get.status);
      expect(get.headers["content-length"], path).toBe(String(get.bytes));
      expect(head.headers["content-length"], path).toBe(String(get.bytes));
      expect(head.bytes, path).toBe(0);
    }
  });
});
