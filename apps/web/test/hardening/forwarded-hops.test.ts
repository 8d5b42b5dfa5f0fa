/**
 * One trusted-hop rule for the forwarding headers (src/server/client-ip.ts): with TRUST_PROXY, the client address
 * (X-Forwarded-For), the scheme (X-Forwarded-Proto: the session cookie's Secure flag, HSTS) and the host
 * (X-Forwarded-Host: the same-origin guard) are all read from the entry the outermost trusted proxy appended
 * (the last one behind one proxy, the N-th from the right behind N, or the first from the right not sent by a
 * listed address), never from one a client put in front of it; without TRUST_PROXY none of them is believed.
 * A table of header values, stamped as server.ts stamps them and read as the router, Next's proxy and the tRPC
 * handler read them.
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { stampClientIp, type TrustProxy, trustedClientIp } from "../../src/server/client-ip.ts";
import { isHttps, isSameOrigin } from "../../src/server/trpc/http.ts";

const PUBLIC = "http://public.example";
const SOCKET = "10.0.0.2";

interface Row {
  name: string;
  /** Header lines, in order (a name may repeat: Node and fetch join repeated lines with ", "). */
  sent: [name: string, value: string][];
  trustProxy: TrustProxy;
  /** The socket's address (default SOCKET). */
  socket?: string;
  /** The client address, whether the request came over HTTPS, and the host its Origin must match. */
  expected: { ip: string; https: boolean; host: string };
}

const TABLE: Row[] = [
  // One proxy: its entries.
  {
    name: "one proxy: its entries",
    sent: [
      ["x-forwarded-for", "203.0.113.7"],
      ["x-forwarded-proto", "https"],
      ["x-forwarded-host", "shop.example"],
    ],
    trustProxy: 1,
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  // A client's own entries in front of the proxy's: the proxy's, in all three headers.
  {
    name: "a client's entries in front of the proxy's: the proxy's, in all three",
    sent: [
      ["x-forwarded-for", "198.51.100.1, 203.0.113.7"],
      ["x-forwarded-proto", "http, https"],
      ["x-forwarded-host", "evil.example, shop.example"],
    ],
    trustProxy: 1,
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  {
    name: "a client's https in front of the proxy's http: http",
    sent: [
      ["x-forwarded-for", "198.51.100.1, 203.0.113.7"],
      ["x-forwarded-proto", "https, http"],
      ["x-forwarded-host", "shop.example, evil.example"],
    ],
    trustProxy: 1,
    expected: { ip: "203.0.113.7", https: false, host: "evil.example" },
  },
  // Repeated header lines are one list, in order.
  {
    name: "repeated header lines: one list, in order",
    sent: [
      ["x-forwarded-for", "198.51.100.1"],
      ["x-forwarded-for", "203.0.113.7"],
      ["x-forwarded-proto", "http"],
      ["x-forwarded-proto", "https"],
      ["x-forwarded-host", "evil.example"],
      ["x-forwarded-host", "shop.example"],
    ],
    trustProxy: 1,
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  // Spacing and case do not matter; empty entries are no hop.
  {
    name: "spacing, case and empty entries",
    sent: [
      ["x-forwarded-for", " 198.51.100.1 ,203.0.113.7 , "],
      ["x-forwarded-proto", "http ,HTTPS,"],
      ["x-forwarded-host", "evil.example , shop.example,"],
    ],
    trustProxy: 1,
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  // No forwarding headers: the socket and the Host header.
  {
    name: "no forwarding headers: the socket and Host",
    sent: [],
    trustProxy: 1,
    expected: { ip: SOCKET, https: false, host: "internal.example:3000" },
  },
  // Without TRUST_PROXY nothing forwarded is believed.
  {
    name: "without TRUST_PROXY: nothing forwarded",
    sent: [
      ["x-forwarded-for", "203.0.113.7"],
      ["x-forwarded-proto", "https"],
      ["x-forwarded-host", "shop.example"],
    ],
    trustProxy: 0,
    expected: { ip: SOCKET, https: false, host: "internal.example:3000" },
  },
  // A trusted proxy that sends only X-Forwarded-Proto and -Host: its entries, and the socket is the client it saw.
  {
    name: "one proxy without X-Forwarded-For: its X-Forwarded-Proto and -Host",
    sent: [
      ["x-forwarded-proto", "http, https"],
      ["x-forwarded-host", "evil.example, shop.example"],
    ],
    trustProxy: 1,
    expected: { ip: SOCKET, https: true, host: "shop.example" },
  },
  // A CDN in front of a load balancer: two hops, the entries the CDN appended.
  {
    name: "two hops (CDN and balancer): the CDN's entries",
    sent: [
      ["x-forwarded-for", "198.51.100.1, 203.0.113.7, 192.0.2.10"],
      ["x-forwarded-proto", "http, https, https"],
      ["x-forwarded-host", "evil.example, shop.example, shop.example"],
    ],
    trustProxy: 2,
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  {
    name: "two hops but one entry: the entry, the rest unknown",
    sent: [
      ["x-forwarded-for", "203.0.113.7"],
      ["x-forwarded-proto", "https"],
      ["x-forwarded-host", "shop.example"],
    ],
    trustProxy: 2,
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  // A list of proxy addresses: every listed hop is skipped, the first unlisted one is the client.
  {
    name: "listed proxies: the first unlisted hop",
    sent: [
      ["x-forwarded-for", "198.51.100.1, 203.0.113.7, 192.0.2.10, 10.1.2.3"],
      ["x-forwarded-proto", "http, https, https, https"],
      ["x-forwarded-host", "evil.example, shop.example, shop.example, shop.example"],
    ],
    trustProxy: ["10.0.0.0/8", "192.0.2.0/24"],
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  {
    name: "listed proxies, a socket outside the list: the socket, nothing forwarded",
    sent: [
      ["x-forwarded-for", "203.0.113.7"],
      ["x-forwarded-proto", "https"],
      ["x-forwarded-host", "shop.example"],
    ],
    trustProxy: ["192.0.2.0/24"],
    expected: { ip: SOCKET, https: false, host: "internal.example:3000" },
  },
  {
    name: "listed proxies, an IPv4-mapped socket address: matched as IPv4",
    sent: [["x-forwarded-for", "203.0.113.7"]],
    socket: "::ffff:10.0.0.2",
    trustProxy: ["10.0.0.0/8"],
    expected: { ip: "203.0.113.7", https: false, host: "internal.example:3000" },
  },
  // A client cannot name itself or the hop count in the server's own headers.
  {
    name: "client-sent stamps: replaced",
    sent: [
      ["x-forwarded-proto", "https"],
      ["x-petstore-client-ip", "192.0.2.99"],
      ["x-petstore-trusted-hops", "1"],
    ],
    trustProxy: 0,
    expected: { ip: SOCKET, https: false, host: "internal.example:3000" },
  },
];

/** `sent` as the node:http request's parsed headers (repeated lines joined with ", ", as Node does). */
function nodeRequest(sent: Row["sent"], socket: string): IncomingMessage {
  const headers: Record<string, string> = { host: "internal.example:3000" };
  for (const [name, value] of sent) headers[name] = headers[name] ? `${headers[name]}, ${value}` : value;
  const rawHeaders = ["host", "internal.example:3000", ...sent.flat()];
  return { headers, rawHeaders, socket: { remoteAddress: socket } } as unknown as IncomingMessage;
}

describe("the trusted hop of X-Forwarded-For, -Proto and -Host", () => {
  it.each(TABLE)("$name (TRUST_PROXY $trustProxy)", ({ sent, trustProxy, socket, expected }) => {
    const config = { publicBaseUrl: PUBLIC };
    const req = nodeRequest(sent, socket ?? SOCKET);
    // server.ts's stamp; the app sees the request's headers after it.
    stampClientIp(req, trustProxy);
    const pairs = req.rawHeaders.flatMap((v, i, all) =>
      i % 2 ? [] : [[v, all[i + 1] ?? ""] as [string, string]],
    );
    const headers = new Headers(pairs);
    const seen = {
      ip: trustedClientIp(headers),
      https: isHttps(headers, config),
      host: ["shop.example", "evil.example", "internal.example:3000"].find((host) =>
        isSameOrigin(new Headers([...headers, ["origin", `http://${host}`]]), config),
      ),
    };
    expect(seen).toEqual(expected);
  });
});
