/** Request helpers of the tRPC handler: same-origin guard, client IP, cookies, error masking. */
import { AppError } from "@petstore/contracts";
import { TRPCError } from "@trpc/server";
import { describe, expect, it, vi } from "vitest";
import { DRAIN_BYTES, DRAIN_MS, withBoundedBody } from "../../src/server/trpc/body-limit";
import { clearedSessionCookie, readCookie, sessionCookie } from "../../src/server/trpc/cookies";
import { toTrpcError, trpcErrorResponse } from "../../src/server/trpc/errors";
import { clientIp, isHttps, isSameOrigin } from "../../src/server/trpc/http";
import { shapeOf } from "./support";

const config = { publicBaseUrl: "https://admin.petstore.example" };
/** The server's stamp for a request that passed one trusted proxy (client-ip.ts). */
const oneHop = { "x-petstore-trusted-hops": "1" };
const headers = (h: Record<string, string>) => new Headers(h);

describe("isSameOrigin", () => {
  it("accepts the public origin and an Origin matching Host", () => {
    expect(
      isSameOrigin(headers({ origin: "https://admin.petstore.example", host: "internal:3000" }), config),
    ).toBe(true);
    expect(isSameOrigin(headers({ origin: "http://127.0.0.1:4000", host: "127.0.0.1:4000" }), config)).toBe(
      true,
    );
  });
  it("refuses other origins, opaque origins and cross-site fetches", () => {
    expect(isSameOrigin(headers({ origin: "https://evil.example", host: "127.0.0.1:4000" }), config)).toBe(
      false,
    );
    expect(isSameOrigin(headers({ origin: "null", host: "127.0.0.1:4000" }), config)).toBe(false);
    expect(isSameOrigin(headers({ "sec-fetch-site": "cross-site", host: "x" }), config)).toBe(false);
    expect(isSameOrigin(headers({ "sec-fetch-site": "same-site", host: "x" }), config)).toBe(false);
  });
  it("only trusts X-Forwarded-Host behind a trusted proxy", () => {
    const h = headers({
      origin: "https://shop.example",
      host: "10.0.0.5:3000",
      "x-forwarded-host": "shop.example",
    });
    expect(isSameOrigin(h, config)).toBe(false);
    expect(isSameOrigin(new Headers([...h, ...Object.entries(oneHop)]), config)).toBe(true);
  });
});

describe("clientIp and isHttps", () => {
  const stamped = { "x-petstore-client-ip": "198.51.100.4", "x-forwarded-for": "203.0.113.9" };
  it("takes the address the app's server stamped (it overwrites what a client sent), never X-Forwarded-For", () => {
    expect(clientIp(headers(stamped))).toBe("198.51.100.4");
    expect(clientIp(headers({ "x-petstore-client-ip": "::ffff:127.0.0.1" }))).toBe("127.0.0.1");
    expect(clientIp(headers({ "x-forwarded-for": "203.0.113.9" }))).toBe("unknown");
  });
  it("detects HTTPS from a trusted proxy or an https public URL, never from what a client says", () => {
    const plain = { publicBaseUrl: "http://localhost:3000" };
    expect(isHttps(headers({ "x-forwarded-proto": "https" }), plain)).toBe(false);
    expect(isHttps(headers({ "x-forwarded-proto": "https", ...oneHop }), plain)).toBe(true);
    expect(isHttps(headers({ "x-forwarded-proto": "http", ...oneHop }), plain)).toBe(false);
    expect(isHttps(headers({}), plain)).toBe(false);
    expect(isHttps(headers({}), config)).toBe(true);
  });
});

describe("session cookie", () => {
  it("is httpOnly, SameSite=Lax, and Secure only when asked", () => {
    expect(sessionCookie("abc", false)).toBe("petstore_session=abc; Path=/; HttpOnly; SameSite=Lax");
    expect(sessionCookie("abc", true)).toBe("petstore_session=abc; Path=/; HttpOnly; SameSite=Lax; Secure");
    expect(clearedSessionCookie(false)).toContain("Max-Age=0");
  });
  it("is read from a Cookie header among others", () => {
    expect(readCookie("a=1; petstore_session=tok; b=2", "petstore_session")).toBe("tok");
    expect(readCookie("a=1", "petstore_session")).toBeUndefined();
    expect(readCookie(null, "petstore_session")).toBeUndefined();
  });
});

describe("error mapping", () => {
  it.each([
    ["validation_failed", "BAD_REQUEST"],
    ["not_found", "NOT_FOUND"],
    ["conflict", "CONFLICT"],
    ["forbidden", "FORBIDDEN"],
    ["unauthorized", "UNAUTHORIZED"],
    ["rate_limited", "TOO_MANY_REQUESTS"],
  ] as const)("maps %s to %s", (appCode, trpcCode) => {
    const wrapped = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new AppError(appCode, "m") });
    expect(toTrpcError(wrapped).code).toBe(trpcCode);
  });
  it("recognises domain errors thrown by another bundle's copy of the classes", () => {
    // What another bundle's copy of contracts' AppError looks like: a different class, the same brand.
    const brand = Symbol.for("petstore.AppError");
    class ForeignAppError extends Error {
      readonly code = "not_found";
      readonly details = undefined;
      readonly [brand] = true;
      constructor(message: string) {
        super(message);
        this.name = "AppError";
      }
    }
    const wrapped = new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      cause: new ForeignAppError("No animal with id 9."),
    });
    const mapped = toTrpcError(wrapped);
    expect(mapped.code).toBe("NOT_FOUND");
    expect(shapeOf(mapped).message).toBe("No animal with id 9.");
  });
  it("hides the text of unexpected errors", () => {
    const error = new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      cause: new Error('relation "Pet" does not exist'),
    });
    const shape = shapeOf(error);
    expect(shape.message).toBe("An unexpected error occurred.");
    expect(shape.data).toMatchObject({ appCode: "internal_error", httpStatus: 500 });
    expect(JSON.stringify(shape)).not.toContain("relation");
  });
});

describe("request body cap", () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request("http://x/api/trpc/auth.signIn", {
      method: "POST",
      body,
      headers,
      duplex: "half",
    } as RequestInit);

  it("passes a body within the limit on, readable again", async () => {
    const bounded = await withBoundedBody(post('{"a":1}'), 16);
    expect(await bounded?.json()).toEqual({ a: 1 });
  });
  it("refuses a declared Content-Length over the limit without buffering it", async () => {
    expect(await withBoundedBody(post("x".repeat(10), { "content-length": "17" }), 16)).toBeUndefined();
  });
  it("refuses a streamed body once it passes the limit", async () => {
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(8));
        controller.close();
      },
    });
    expect(await withBoundedBody(post(stream), 16)).toBeUndefined();
  });
  it("reads a refused stream to its end when the rest is short, so its sender gets the 413, not a reset", async () => {
    let pulled = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (pulled >= 100 * 1024) return controller.close();
        pulled += 1024;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    expect(await withBoundedBody(post(stream), 16 * 1024)).toBeUndefined();
    expect(pulled).toBe(100 * 1024);
  });
  it("stops reading a refused endless stream after DRAIN_BYTES and cancels it", async () => {
    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream({
      pull(controller) {
        pulled += 1024 * 1024;
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    expect(await withBoundedBody(post(stream), 16 * 1024)).toBeUndefined();
    expect(cancelled).toBe(true);
    expect(pulled).toBeGreaterThan(DRAIN_BYTES);
    expect(pulled).toBeLessThan(DRAIN_BYTES + 5 * 1024 * 1024);
  });
  it("stops waiting for a refused stream that stalls after DRAIN_MS", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let cancelled = false;
      const stream = new ReadableStream({
        pull() {
          return new Promise(() => {});
        },
        cancel() {
          cancelled = true;
        },
      });
      let answered = false;
      const answer = withBoundedBody(post(stream, { "content-length": "999999" }), 16).finally(() => {
        answered = true;
      });
      // Waiting 1 ms before DRAIN_MS, answered at DRAIN_MS.
      await vi.advanceTimersByTimeAsync(DRAIN_MS - 1);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(answered).toBe(true);
      expect(await answer).toBeUndefined();
      expect(cancelled).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
  it("stops reading a refused stream that trickles after DRAIN_MS", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let cancelled = false;
      const stream = new ReadableStream({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          controller.enqueue(new Uint8Array(1024));
        },
        cancel() {
          cancelled = true;
        },
      });
      let answered = false;
      const answer = withBoundedBody(post(stream, { "content-length": "999999" }), 16).finally(() => {
        answered = true;
      });
      // Still reading and dropping 50 ms before DRAIN_MS, done at DRAIN_MS.
      await vi.advanceTimersByTimeAsync(DRAIN_MS - 50);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(50);
      expect(answered).toBe(true);
      expect(await answer).toBeUndefined();
      expect(cancelled).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
  it("answers refusals made before tRPC in tRPC's error shape, with the headers of every JSON error", async () => {
    const r = trpcErrorResponse({ code: "payload_too_large", message: "Too big." }, "req-42");
    expect(r.status).toBe(413);
    expect(r.headers.get("x-request-id")).toBe("req-42");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(await r.json()).toEqual({
      error: {
        message: "Too big.",
        code: -32013,
        data: {
          code: "PAYLOAD_TOO_LARGE",
          httpStatus: 413,
          appCode: "payload_too_large",
          details: null,
          retryAfterSeconds: null,
        },
      },
    });
  });
});
