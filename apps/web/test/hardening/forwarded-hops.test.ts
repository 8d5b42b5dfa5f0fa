/**
 * One trusted-hop rule for the forwarding headers (src/server/client-ip.ts `trustedForwardedValue`): with
 * TRUST_PROXY, the client address (X-Forwarded-For), the scheme (X-Forwarded-Proto: the session cookie's Secure
 * flag, HSTS) and the host (X-Forwarded-Host: the same-origin guard) are all read from the entry the trusted
 * proxy appended, the last one, never from one a client put in front of it; without TRUST_PROXY none of them is
 * believed. A table of header values, read as the router, Next's proxy and the tRPC handler read them.
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientIpOf, trustedClientIp } from "../../src/server/client-ip.ts";
import { isHttps, isSameOrigin } from "../../src/server/trpc/http.ts";

const PUBLIC = "http://public.example";
const SOCKET = "10.0.0.2";

interface Row {
  name: string;
  /** Header lines, in order (a name may repeat: Node and fetch join repeated lines with ", "). */
  sent: [name: string, value: string][];
  trustProxy: boolean;
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
    trustProxy: true,
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
    trustProxy: true,
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  {
    name: "a client's https in front of the proxy's http: http",
    sent: [
      ["x-forwarded-for", "198.51.100.1, 203.0.113.7"],
      ["x-forwarded-proto", "https, http"],
      ["x-forwarded-host", "shop.example, evil.example"],
    ],
    trustProxy: true,
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
    trustProxy: true,
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
    trustProxy: true,
    expected: { ip: "203.0.113.7", https: true, host: "shop.example" },
  },
  // No forwarding headers: the socket and the Host header.
  {
    name: "no forwarding headers: the socket and Host",
    sent: [],
    trustProxy: true,
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
    trustProxy: false,
    expected: { ip: SOCKET, https: false, host: "internal.example:3000" },
  },
];

/** `sent` as the node:http request's parsed headers (repeated lines joined with ", ", as Node does). */
function nodeRequest(sent: Row["sent"]): IncomingMessage {
  const headers: Record<string, string> = { host: "internal.example:3000" };
  for (const [name, value] of sent) headers[name] = headers[name] ? `${headers[name]}, ${value}` : value;
  return { headers, socket: { remoteAddress: SOCKET } } as unknown as IncomingMessage;
}

describe("the trusted hop of X-Forwarded-For, -Proto and -Host", () => {
  it.each(TABLE)("$name (TRUST_PROXY $trustProxy)", ({ sent, trustProxy, expected }) => {
    const config = { publicBaseUrl: PUBLIC, trustProxy };
    const headers = new Headers([["host", "internal.example:3000"], ...sent]);
    const req = nodeRequest(sent);
    const seen = {
      // server.ts's stamp.
      ip: clientIpOf(req, trustProxy),
      https: isHttps(headers, config),
      host: ["shop.example", "evil.example", "internal.example:3000"].find((host) =>
        isSameOrigin(new Headers([...headers, ["origin", `http://${host}`]]), config),
      ),
    };
    expect(seen).toEqual(expected);
    // What the app reads back from the stamp.
    const stamped = new Headers([["x-petstore-client-ip", seen.ip]]);
    expect(trustedClientIp(stamped)).toBe(expected.ip);
  });
});
