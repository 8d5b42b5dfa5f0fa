/**
 * A TCP proxy on a free 127.0.0.1 port to an upstream port, for outage and slow-network tests: it can be cut
 * (connections dropped, port closed) and opened again on the same port, and it can hold back the replies
 * (upstream to client bytes) of the next connections by a fixed time.
 */
import net, { type AddressInfo } from "node:net";

export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private delayedConnections = 0;
  private replyDelayMs = 0;
  /** The proxy's port (0 until first opened; kept when opened again). */
  port = 0;
  /** Connections accepted so far. */
  connections = 0;

  constructor(private readonly upstreamPort: number) {}

  /** Listens (again) on `port`, or on a free port the first time; does nothing when already open. */
  async open(): Promise<void> {
    if (this.server) return;
    this.server = net.createServer((client) => this.relay(client));
    await new Promise<void>((resolve) => this.server?.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Drops every connection and stops accepting new ones until `open()`. */
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Delays what upstream sends on each of the next `connections` connections by `ms`. */
  delayReplies(ms: number, connections = 1): void {
    this.replyDelayMs = ms;
    this.delayedConnections = connections;
  }

  private relay(client: net.Socket): void {
    this.connections++;
    const upstream = net.connect(this.upstreamPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(s);
      });
    }
    client.pipe(upstream);
    if (this.delayedConnections > 0) {
      this.delayedConnections--;
      const ms = this.replyDelayMs;
      // Same delay for every chunk, so timers fire in order and the bytes stay in order.
      upstream.on("data", (chunk: Buffer) => {
        setTimeout(() => {
          if (!client.destroyed) client.write(chunk);
        }, ms);
      });
    } else {
      upstream.pipe(client);
    }
  }
}
