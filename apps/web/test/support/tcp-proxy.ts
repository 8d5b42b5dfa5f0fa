/**
 * A fault-injecting TCP proxy on a free 127.0.0.1 port in front of a dependency (PostgreSQL, Redis), for outage
 * tests. Faults:
 * - `cut()` / refuse: every connection dropped and the port closed (connection refused) until `open()`;
 * - `blackhole()`: connections stay open and new ones are accepted, but nothing passes either way;
 * - `silence()`: the connections open now stay open and pass nothing, ever; new ones work (a dependency that
 *   "healed" while the client kept its old, dead connections);
 * - `heal()`: new connections work again (silenced ones stay silent);
 * - `delayReplies(ms, n)`: the next `n` connections get the upstream's bytes `ms` late.
 */
import net, { type AddressInfo } from "node:net";

interface Relay {
  client: net.Socket;
  upstream?: net.Socket;
  silent: boolean;
}

/** Drops whatever arrives on `socket`, keeping it open. */
const swallow = (socket: net.Socket) => {
  socket.on("data", () => undefined);
  socket.resume();
};

export class TcpProxy {
  private server?: net.Server;
  private readonly relays = new Set<Relay>();
  private delayedConnections = 0;
  private replyDelayMs = 0;
  private holeOpen = false;
  /** The proxy's port (0 until first opened; kept when opened again). */
  port = 0;
  /** Connections accepted so far. */
  connections = 0;

  constructor(private readonly upstreamPort: number) {}

  /** Listens (again) on `port`, or on a free port the first time; does nothing when already open. */
  async open(): Promise<void> {
    this.holeOpen = false;
    if (this.server) return;
    this.server = net.createServer((client) => this.relay(client));
    await new Promise<void>((resolve) => this.server?.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Drops every connection and stops accepting new ones until `open()`. */
  async cut(): Promise<void> {
    for (const r of this.relays) {
      r.client.destroy();
      r.upstream?.destroy();
    }
    this.relays.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Every connection, open or new, passes nothing until `heal()` (existing ones never again). */
  blackhole(): void {
    this.silence();
    this.holeOpen = true;
  }

  /** The connections open now pass nothing, ever, and stay open; new connections are not affected. */
  silence(): void {
    for (const r of this.relays) this.silenceRelay(r);
  }

  /** New connections pass again. */
  heal(): void {
    this.holeOpen = false;
  }

  /** Delays what upstream sends on each of the next `connections` connections by `ms`. */
  delayReplies(ms: number, connections = 1): void {
    this.replyDelayMs = ms;
    this.delayedConnections = connections;
  }

  private silenceRelay(r: Relay): void {
    if (r.silent) return;
    r.silent = true;
    r.client.unpipe();
    r.upstream?.unpipe();
    r.upstream?.removeAllListeners("data");
    swallow(r.client);
    if (r.upstream) swallow(r.upstream);
  }

  private relay(client: net.Socket): void {
    this.connections++;
    const r: Relay = { client, silent: false };
    this.relays.add(r);
    client.on("error", () => undefined);
    client.on("close", () => {
      r.upstream?.destroy();
      this.relays.delete(r);
    });
    if (this.holeOpen) {
      r.silent = true;
      swallow(client);
      return;
    }
    const upstream = net.connect(this.upstreamPort, "127.0.0.1");
    r.upstream = upstream;
    upstream.on("error", () => undefined);
    upstream.on("close", () => {
      if (!r.silent) client.destroy();
    });
    client.pipe(upstream);
    if (this.delayedConnections > 0) {
      this.delayedConnections--;
      const ms = this.replyDelayMs;
      // Same delay for every chunk, so timers fire in order and the bytes stay in order.
      upstream.on("data", (chunk: Buffer) => {
        setTimeout(() => {
          if (!client.destroyed && !r.silent) client.write(chunk);
        }, ms);
      });
    } else {
      upstream.pipe(client);
    }
  }
}
