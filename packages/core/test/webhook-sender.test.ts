/**
 * The webhook sender's pooled connections: a delivery whose kept-alive connection is reset before any byte of an
 * answer (the receiver closed it as the request went out) is sent again at once on a new connection, with the
 * same `webhook-id`; a reset of a new connection is a failure of the attempt, not retried.
 * The receiver is a raw TCP server that answers the first request of each connection 204 (keeping it open) and
 * resets the connection on its second request.
 */
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSender, type OutgoingMessage } from "../src/webhooks/sender.ts";

const SECRET = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;

let server: net.Server;
let origin = "";
/** The `webhook-id` of every request the receiver read, in order. */
const seen: string[] = [];
let connections = 0;
/** When true, every connection is reset on its first request too. */
let resetAll = false;

beforeAll(async () => {
  server = net.createServer((socket) => {
    connections++;
    let requests = 0;
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk;
      // Each request is small and sent whole: its head and its Content-Length body.
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        seen.push(/webhook-id: (\S+)/i.exec(head)?.[1] ?? "");
        requests++;
        if (resetAll || requests > 1) {
          socket.resetAndDestroy();
          return;
        }
        socket.write("HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nKeep-Alive: timeout=30\r\n\r\n");
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const message = (id: string): OutgoingMessage => ({
  url: `${origin}/hook`,
  messageId: id,
  body: JSON.stringify({ type: "test", id }),
  secrets: [SECRET],
});

describe("webhook sender on kept-alive connections", () => {
  it("sends again at once on a new connection when a reused connection is reset before an answer", async () => {
    seen.length = 0;
    connections = 0;
    resetAll = false;
    const sender = createSender({ timeoutMs: 5_000, allowPrivateTargets: true, userAgent: "test" });
    try {
      expect((await sender.send(message("msg_first"))).status).toBe(204);
      const second = await sender.send(message("msg_second"));
      expect(second.error).toBeUndefined();
      expect(second.status).toBe(204);
      // The reset request, then the same message again on a second connection.
      expect(seen).toEqual(["msg_first", "msg_second", "msg_second"]);
      expect(connections).toBe(2);
    } finally {
      sender.close();
    }
  });

  it("does not send again when a new connection is reset", async () => {
    seen.length = 0;
    resetAll = true;
    const sender = createSender({ timeoutMs: 5_000, allowPrivateTargets: true, userAgent: "test" });
    try {
      const result = await sender.send(message("msg_fresh"));
      expect(result.status).toBeUndefined();
      expect(result.error).toMatch(/reset/);
      expect(seen).toEqual(["msg_fresh"]);
    } finally {
      sender.close();
      resetAll = false;
    }
  });
});
