/**
 * What one connection can make the production server hold (docs/operations.md "Timeouts and limits"):
 * - clients that pipeline many requests and never read the answers: requests of a connection are served one at a
 *   time and stop while its answers are not read, so the server's memory stays bounded and other clients are
 *   served as usual;
 * - a body dripped byte by byte: answered 408 `request_timeout` (JSON) once HTTP_REQUEST_TIMEOUT_MS has passed.
 */
import fs from "node:fs";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { sleep, timed, useFaultyServer } from "./support.ts";

/** Resident memory of process `pid` in MB. */
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

describe("slow readers and dripped bodies (production server)", () => {
  const f = useFaultyServer(
    {},
    { PETSTORE_SERVE: "api", HTTP_HEADERS_TIMEOUT_MS: "2000", HTTP_REQUEST_TIMEOUT_MS: "2000" },
  );

  it("keeps its memory bounded under 200 connections pipelining 200 requests each without reading", async () => {
    const port = Number(new URL(f.baseUrl).port);
    const request = `GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.key}\r\n\r\n`;
    const sockets: net.Socket[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        const socket = net.connect(port, "127.0.0.1");
        socket.on("error", () => undefined);
        socket.pause(); // never reads
        socket.write(request.repeat(200));
        sockets.push(socket);
      }
      const normal: number[] = [];
      let peak = 0;
      for (let i = 0; i < 20; i++) {
        await sleep(250);
        peak = Math.max(peak, rssMb(f.server.pid as number));
        const r = await timed(`${f.baseUrl}/v1/pets?limit=1`, {
          headers: { authorization: `Bearer ${f.key}` },
        });
        expect(r.status).toBe(200);
        normal.push(r.ms);
      }
      expect(peak).toBeLessThan(400);
      expect(Math.max(...normal)).toBeLessThan(2000);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it("answers a dripped body 408 request_timeout (JSON) after HTTP_REQUEST_TIMEOUT_MS", async () => {
    const port = Number(new URL(f.baseUrl).port);
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    );
    const started = performance.now();
    const drip = setInterval(() => socket.write(" "), 500);
    await Promise.race([closed, sleep(10_000)]);
    clearInterval(drip);
    socket.destroy();
    expect(performance.now() - started).toBeLessThan(5000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({
      code: "request_timeout",
      status: 408,
    });
  });
});
