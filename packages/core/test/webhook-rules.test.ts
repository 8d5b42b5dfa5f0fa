/**
 * Webhook rules without a database (docs/contract.md section 6): which targets may be called (https, public
 * addresses; checked when saved and again when connecting, so DNS rebinding cannot reach a private address),
 * the retry schedule with its jitter and `Retry-After`, and the `pet.updated` body's `previous` fields.
 */
import type dns from "node:dns";
import { AppError } from "@petstore/contracts";
import { describe, expect, it } from "vitest";
import { startWebhookReceiver } from "../src/testing/webhook-receiver.ts";
import { petUpdatedData } from "../src/webhooks/outbox.ts";
import { JITTER, nextDelayMs, parseRetryAfter } from "../src/webhooks/retry.ts";
import { createSender } from "../src/webhooks/sender.ts";
import {
  BlockedAddressError,
  blockedLiteral,
  checkTarget,
  guardedLookup,
  isPublicAddress,
} from "../src/webhooks/targets.ts";

const SCHEDULE = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

describe("webhook targets", () => {
  it.each([
    ["http://8.8.8.8/hook", /must start with https/],
    [
      "https://127.0.0.1/hook",
      /^Invalid url: this host is not allowed: webhooks call public addresses only$/,
    ],
    ["https://10.1.2.3/hook", /not allowed/],
    ["https://192.168.0.10:8443/hook", /not allowed/],
    ["https://169.254.169.254/latest/meta-data", /not allowed/],
    ["https://100.64.0.1/", /not allowed/],
    ["https://0.0.0.0/", /not allowed/],
    ["https://[::1]/hook", /not allowed/],
    ["https://[fd00::1]/hook", /not allowed/],
    ["https://[::ffff:10.0.0.1]/hook", /not allowed/],
    [
      "https://localhost/hook",
      /^Invalid url: this host is not allowed: webhooks call public addresses only$/,
    ],
    // A name with no address: the same few words, never "could not be resolved" (which tells internal names apart).
    ["https://no-such-host.invalid/hook", /^Invalid url: this host could not be reached$/],
  ])("refuses %s when saved", async (url, message) => {
    const refused = await checkTarget(url, false).catch((e: unknown) => e);
    expect(AppError.is(refused)).toBe(true);
    expect((refused as AppError).code).toBe("validation_failed");
    expect((refused as AppError).details?.[0]?.path).toBe("url");
    expect((refused as AppError).message).toMatch(message);
  });

  it("accepts https to a public address, and anything with private targets allowed", async () => {
    expect(await checkTarget("https://8.8.8.8/hook?x=1", false)).toBe("https://8.8.8.8/hook?x=1");
    expect(await checkTarget("https://[2001:4860:4860::8888]/h", false)).toBe(
      "https://[2001:4860:4860::8888]/h",
    );
    expect(await checkTarget("http://127.0.0.1:9/hook", true)).toBe("http://127.0.0.1:9/hook");
  });

  it("classifies addresses with ipaddr.js: only public unicast passes", () => {
    expect(isPublicAddress("93.184.216.34")).toBe(true);
    expect(isPublicAddress("2606:4700::1111")).toBe(true);
    for (const a of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "::1",
      "fe80::1",
      "224.0.0.1",
      "::ffff:127.0.0.1",
      "nonsense",
    ])
      expect(isPublicAddress(a), a).toBe(false);
  });

  // IPv6 addresses that are not global unicast, or that carry an IPv4 address a gateway would call on.
  const reservedV6: [string, string][] = [
    ["::127.0.0.1", "IPv4-compatible (::/96), loopback inside"],
    ["::a00:1", "IPv4-compatible (::/96), 10.0.0.1 inside"],
    ["::8.8.8.8", "IPv4-compatible (::/96), deprecated even with a public IPv4"],
    ["::ffff:0:a00:1", "IPv4-translated (RFC 6145)"],
    ["64:ff9b::10.0.0.1", "NAT64 (64:ff9b::/96), private IPv4 inside"],
    ["64:ff9b::7f00:1", "NAT64 (64:ff9b::/96), loopback inside"],
    ["64:ff9b:1::a00:1", "local-use NAT64 (64:ff9b:1::/48)"],
    ["2002:a00:1::1", "6to4 (2002::/16), 10.0.0.1 inside"],
    ["2002:7f00:1::1", "6to4 (2002::/16), loopback inside"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo (2001::/32)"],
    ["2001:0:a00:1::", "Teredo (2001::/32), private server"],
    ["100::1", "discard-only (100::/64)"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation (3fff::/20)"],
    ["fec0::1", "deprecated site-local"],
    ["5f00::1", "segment routing"],
    ["4000::1", "outside global unicast 2000::/3"],
    ["::2:0:0:1", "reserved ::/8"],
  ];

  it.each(reservedV6)("refuses [%s] (%s) when saved, when sending and in a DNS answer", async (address) => {
    const url = `https://[${address}]/h`;
    const refused = await checkTarget(url, false).catch((e: unknown) => e);
    expect(AppError.is(refused), url).toBe(true);
    expect((refused as AppError).message).toMatch(/not allowed/);
    expect(blockedLiteral(new URL(url), false), url).toBeInstanceOf(BlockedAddressError);
    expect(isPublicAddress(address), address).toBe(false);
    expect(isPublicAddress(new URL(url).hostname.slice(1, -1)), address).toBe(false);
    const answer = ((_host: string, _options: dns.LookupOptions, callback: (...args: unknown[]) => void) =>
      callback(null, [{ address, family: 6 }])) as unknown as typeof dns.lookup;
    const error = await new Promise((done) => guardedLookup(answer)("hook.example", {}, (e) => done(e)));
    expect(error, address).toBeInstanceOf(BlockedAddressError);
  });

  it.each(["2606:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001::200e", "::ffff:8.8.8.8"])(
    "accepts the public address %s everywhere",
    async (address) => {
      const url = `https://[${address}]/h`;
      expect(await checkTarget(url, false)).toBe(new URL(url).href);
      expect(blockedLiteral(new URL(url), false)).toBeUndefined();
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it("refuses at connection time a host that now resolves to a private address (DNS rebinding)", async () => {
    const receiver = await startWebhookReceiver();
    const port = new URL(receiver.origin).port;
    // A name that resolved to a public address when it was saved and to the loopback address now.
    const rebinding = ((_host: string, _options: dns.LookupOptions, callback: (...args: unknown[]) => void) =>
      callback(null, [{ address: "127.0.0.1", family: 4 }])) as unknown as typeof dns.lookup;
    const sender = createSender({
      timeoutMs: 2_000,
      allowPrivateTargets: false,
      userAgent: "test",
      lookup: guardedLookup(rebinding),
    });
    try {
      for (const url of [`https://rebind.example:${port}/hook`, `https://127.0.0.1:${port}/hook`]) {
        const result = await sender.send({
          url,
          messageId: "msg_1",
          body: "{}",
          secrets: [`whsec_${"A".repeat(44)}`],
        });
        expect(result.status, url).toBeUndefined();
        expect(result.error, url).toBe("this host is not allowed: webhooks call public addresses only");
        expect(result.error, url).not.toMatch(/127\.0\.0\.1|resolve/);
        expect(result.requestHeaders, url).toBeUndefined();
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      sender.close();
      await receiver.close();
    }
  });
});

describe("webhook retry schedule", () => {
  it("waits each step of the schedule, jittered by at most 20%, then gives up", () => {
    for (const [round, step] of SCHEDULE.entries()) {
      expect(nextDelayMs(round, SCHEDULE, undefined, () => 0)).toBe(Math.round(step * (1 - JITTER)));
      expect(nextDelayMs(round, SCHEDULE, undefined, () => 0.5)).toBe(step);
      expect(nextDelayMs(round, SCHEDULE, undefined, () => 0.999_999)).toBeLessThanOrEqual(
        step * (1 + JITTER),
      );
    }
    expect(nextDelayMs(SCHEDULE.length, SCHEDULE)).toBeUndefined();
  });

  it("honours Retry-After (seconds or an HTTP date), at least 1 s and at most the longest step", () => {
    const now = Date.parse("2026-06-01T12:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Mon, 01 Jun 2026 12:05:00 GMT", now)).toBe(300_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    // Not delay-seconds, and no HTTP-date (which starts with the day name), though Date.parse reads it as a year.
    expect(parseRetryAfter("-5", now)).toBeUndefined();
    expect(parseRetryAfter("Mon, 01 Jun 2026 11:00:00 GMT", now)).toBe(0);
    expect(nextDelayMs(0, SCHEDULE, 120_000)).toBe(120_000);
    expect(nextDelayMs(3, SCHEDULE, 0)).toBe(1_000);
    expect(nextDelayMs(0, SCHEDULE, 7 * 86_400_000)).toBe(36_000_000);
    expect(nextDelayMs(SCHEDULE.length, SCHEDULE, 5_000)).toBeUndefined();
  });
});

describe("pet.updated data", () => {
  it("carries the animal after the change and the changed fields before it", () => {
    expect(
      petUpdatedData(
        { id: 1, name: "Rex", categoryId: 2, status: "sold" },
        { id: 1, name: "Rex", categoryId: 2 },
      ),
    ).toEqual({ id: 1, name: "Rex", categoryId: 2, status: "sold", previous: { status: null } });
    expect(
      petUpdatedData(
        { id: 1, name: "Max", categoryId: 3 },
        { id: 1, name: "Rex", categoryId: 2, status: "sold" },
      ),
    ).toEqual({
      id: 1,
      name: "Max",
      categoryId: 3,
      previous: { name: "Rex", categoryId: 2, status: "sold" },
    });
    expect(
      petUpdatedData({ id: 1, name: "Rex", categoryId: 2 }, { id: 1, name: "Rex", categoryId: 2 }),
    ).toBeUndefined();
  });
});
