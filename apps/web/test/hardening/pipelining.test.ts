/**
 * A connection that pipelines past the cap of waiting requests (src/server/http/connections.ts, `MAX_WAITING`)
 * leaves nothing behind: it is disconnected, none of the requests past the cap reaches the handler, and the
 * answers the server tracks (what a stop waits for, lifecycle.ts) drop back to none, so a stop after such a
 * burst is not held up. In process, on listen(0) servers with server.ts's connection flow over a stand-in
 * handler.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Connections, createConnections, MAX_WAITING } from "../../src/server/http/connections.ts";

interface Served {
  server: http.Server;
  port: number;
  connections: Connections;
  /** The targets the handler was given, in order. */
  handled: string[];
}

const servers: http.Server[] = [];

/** A server with the connection flow over a handler that answers `ok` at once. */
async function serve(): Promise<Served> {
  const handled: string[] = [];
  const connections = createConnections((req, res) => {
    handled.push(req.url ?? "");
    res.writeHead(200, { "Content-Length": "2" }).end("ok");
  });
  const server = http.createServer(connections.listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, connections, handled };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
});

/** `count` pipelined GETs of `/n` (n from 0), in one write. */
const burst = (count: number) =>
  Array.from({ length: count }, (_, n) => `GET /${n} HTTP/1.1\r\nHost: x\r\n\r\n`).join("");

describe("pipelining past the cap", () => {
  it("disconnects, hands none of the requests past the cap to the handler and tracks no answer afterwards", async () => {
    const { server, port, connections, handled } = await serve();
    const serverSide = new Promise<void>((resolve) =>
      server.once("connection", (socket) => socket.once("close", () => resolve())),
    );
    const client = net.connect(port, "127.0.0.1");
    client.on("error", () => undefined);
    // Never reads its answers.
    client.pause();
    client.write(burst(200));
    await serverSide;
    client.destroy();
    expect(handled.length).toBeLessThanOrEqual(1 + MAX_WAITING);
    expect(handled).not.toContain(`/${1 + MAX_WAITING}`);
    // What a stop waits for: settled at once (the bound only matters when answers are left behind).
    const settled = await connections.settled(2_000);
    expect({ settled, inProgress: connections.inProgress }).toEqual({ settled: true, inProgress: 0 });
  });

  it("still answers every request of a connection that stays within the cap, in order", async () => {
    const { port, connections, handled } = await serve();
    const client = net.connect(port, "127.0.0.1");
    client.write(`${burst(MAX_WAITING)}GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    let text = "";
    for await (const chunk of client) text += chunk.toString();
    expect(text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(MAX_WAITING + 1);
    expect(handled).toEqual([...Array.from({ length: MAX_WAITING }, (_, n) => `/${n}`), "/last"]);
    expect(await connections.settled(2_000)).toBe(true);
    expect(connections.inProgress).toBe(0);
  });
});
