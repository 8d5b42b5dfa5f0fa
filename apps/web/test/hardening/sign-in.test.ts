/**
 * Sign-in throttling (docs/operations.md "Dashboard security"), over HTTP against the dashboard's tRPC API served
 * in process behind server.ts's router (in-process.ts): the throttle cannot be raced by a batch or
 * by parallel requests, one client cannot lock an account for everyone, strangers cannot lock out a browser
 * holding the account's device cookie, IPv6 clients count per /64, throttled answers carry
 * Retry-After, /api/trpc refuses oversized bodies and batches, the cookie's Secure flag ignores a
 * client's X-Forwarded-Proto without TRUST_PROXY, and sign-in events are in the audit log.
 */

import { AppError } from "@petstore/contracts";
import { SIGN_IN_BUSY_MESSAGE, SIGN_IN_BUSY_RETRY_SECONDS } from "@petstore/core";
import { databaseOf, pollUntil } from "@petstore/core/testing";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { useInProcessApp } from "./in-process.ts";
import { ADMIN, batchCodes, PASSWORD, STAFF, signIn, trpc, trpcBatch, trpcCode } from "./support.ts";

const wrong = (email: string, i: number) => ({
  path: "auth.signIn",
  input: { email, password: `wrong ${i}` },
});

describe("sign-in throttle (TRUST_PROXY on)", () => {
  // Parallel sign-ins are the subject here, not the cap on password work (sign-in-work.test.ts in core).
  const app = useInProcessApp({ PASSWORD_HASH_CONCURRENCY: "64" });

  it("answers a sign-in while the password work is full up front, unread, as the sign-in itself would", async () => {
    const ip = "203.0.113.9";
    const busy = new AppError("rate_limited", SIGN_IN_BUSY_MESSAGE, undefined, {
      "Retry-After": String(SIGN_IN_BUSY_RETRY_SECONDS),
    });
    // What tRPC answers when the sign-in itself finds the work full.
    const signIn = vi.spyOn(app.rt.sessions, "signIn").mockRejectedValue(busy);
    onTestFinished(() => signIn.mockRestore());
    const inside = await trpc(app, "mutation", "auth.signIn", { email: STAFF, password: "x" }, { ip });
    const insideBatch = await trpcBatch(app, [wrong(STAFF, 0)], { ip });
    expect(signIn).toHaveBeenCalledTimes(2);
    // Answered before tRPC runs: the same answers, the sign-in never called, the body never read (not JSON here).
    const full = vi.spyOn(app.rt.sessions, "signInBusy").mockReturnValue(true);
    onTestFinished(() => full.mockRestore());
    const unread = (batch: boolean) =>
      fetch(`${app.baseUrl}/api/trpc/auth.signIn${batch ? "?batch=1" : ""}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ip },
        body: "{not json",
      }).then(async (r) => ({
        status: r.status,
        retryAfter: r.headers.get("retry-after"),
        body: await r.json(),
      }));
    const outside = await unread(false);
    const outsideBatch = await unread(true);
    expect(signIn).toHaveBeenCalledTimes(2);
    expect(outside).toEqual({ status: 429, retryAfter: "1", body: inside.body });
    expect(outsideBatch).toEqual({ status: 429, retryAfter: "1", body: insideBatch.body });
    expect(trpcCode(inside)).toBe("TOO_MANY_REQUESTS");
    // Other procedures, and a batch that carries more than the sign-in, go to tRPC as ever.
    expect((await trpc(app, "query", "auth.me", undefined, { ip })).status).toBe(200);
  });

  it("checks at most 5 passwords of one batch and refuses the right one after them", async () => {
    const ip = "203.0.113.1";
    const codes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const calls = Array.from({ length: 10 }, (_, i) => wrong(STAFF, round * 10 + i));
      if (round === 2) calls[9] = { path: "auth.signIn", input: { email: STAFF, password: PASSWORD } };
      const r = await trpcBatch(app, calls, { ip });
      expect(r.headers.get("set-cookie") ?? "").not.toContain("petstore_session=");
      codes.push(...batchCodes(r));
    }
    expect(codes).toHaveLength(30);
    expect(codes.filter((c) => c === "UNAUTHORIZED")).toHaveLength(5);
    expect(codes.filter((c) => c === "TOO_MANY_REQUESTS")).toHaveLength(25);
    expect(codes.at(-1)).toBe("TOO_MANY_REQUESTS");
  });

  it("checks at most 5 of 30 parallel sign-ins from one client", async () => {
    const ip = "203.0.113.2";
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        trpc(app, "mutation", "auth.signIn", wrong(ADMIN, i).input, { ip }),
      ),
    );
    const codes = replies.map(trpcCode);
    expect(codes.filter((c) => c === "UNAUTHORIZED")).toHaveLength(5);
    expect(codes.filter((c) => c === "TOO_MANY_REQUESTS")).toHaveLength(25);
  });

  it("does not let one client lock an account for everyone", async () => {
    const attacker = "203.0.113.3";
    for (let i = 0; i < 5; i++) {
      const r = await trpc(app, "mutation", "auth.signIn", wrong(ADMIN, i).input, { ip: attacker });
      expect(trpcCode(r)).toBe("UNAUTHORIZED");
    }
    const blocked = await trpc(
      app,
      "mutation",
      "auth.signIn",
      { email: ADMIN, password: PASSWORD },
      { ip: attacker },
    );
    expect(trpcCode(blocked)).toBe("TOO_MANY_REQUESTS");
    // The owner, from their own address, signs in.
    await expect(signIn(app, ADMIN, "198.51.100.7")).resolves.toMatch(/.{20,}/);
  });

  it("sets a device cookie with which the owner's browser signs in while strangers are locked out", async () => {
    const owner = "owner@hardening.test";
    await app.db.rt.users.create({ email: owner, name: "Owner", role: "admin", password: PASSWORD }, "test");
    const first = await trpc(app, "mutation", "auth.signIn", { email: owner, password: PASSWORD }, {});
    expect(first.status).toBe(200);
    const set = first.headers.getSetCookie().find((c) => c.startsWith("petstore_device="));
    expect(set).toMatch(
      /^petstore_device=[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}\.\d+\.[A-Za-z0-9_-]{43}; Path=\/api\/trpc; Max-Age=7776000; HttpOnly; SameSite=Strict$/,
    );
    const device = set?.split(";")[0] ?? "";
    // Strangers' failures have locked the account (written directly: 100 password checks only cost time).
    const prisma = databaseOf(app.db.rt).prisma;
    const locked = { failures: 100, lastAttemptAt: new Date(), blockedUntil: new Date(Date.now() + 900_000) };
    await prisma.signInThrottle.upsert({
      where: { bucket: `account:${owner}` },
      create: { bucket: `account:${owner}`, ...locked },
      update: locked,
    });
    const stranger = await trpc(
      app,
      "mutation",
      "auth.signIn",
      { email: owner, password: PASSWORD },
      {
        ip: "198.51.100.81",
      },
    );
    expect(stranger.status).toBe(429);
    expect(Number(stranger.headers.get("retry-after"))).toBeGreaterThan(890);
    const again = await trpc(
      app,
      "mutation",
      "auth.signIn",
      { email: owner, password: PASSWORD },
      {
        ip: "198.51.100.82",
        headers: { Cookie: device },
      },
    );
    expect(again.status).toBe(200);
    expect(again.headers.get("set-cookie")).toContain("petstore_session=");
  });

  it("counts IPv6 clients per /64 (X-Forwarded-For)", async () => {
    for (let i = 1; i <= 5; i++) {
      const r = await trpc(app, "mutation", "auth.signIn", wrong(STAFF, i).input, {
        ip: `2001:db8:77:1::${i}`,
      });
      expect(trpcCode(r)).toBe("UNAUTHORIZED");
    }
    const same = await trpc(
      app,
      "mutation",
      "auth.signIn",
      { email: STAFF, password: PASSWORD },
      {
        ip: "2001:db8:77:1:abcd::1",
      },
    );
    expect(same.status).toBe(429);
    const other = await trpc(
      app,
      "mutation",
      "auth.signIn",
      { email: STAFF, password: PASSWORD },
      {
        ip: "2001:db8:77:2::1",
      },
    );
    expect(other.status).toBe(200);
  });

  it("answers every throttled sign-in with Retry-After and says when sign-in opens again", async () => {
    const ip = "203.0.113.4";
    for (let i = 0; i < 5; i++) await trpc(app, "mutation", "auth.signIn", wrong(STAFF, i).input, { ip });
    const r = await trpc(app, "mutation", "auth.signIn", wrong(STAFF, 9).input, { ip });
    expect(r.status).toBe(429);
    const retryAfter = Number(r.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    const data = (r.body as { error: { data: { retryAfterSeconds?: number } } }).error.data;
    expect(data.retryAfterSeconds).toBe(retryAfter);
    // Batched: the batch's answer carries it too.
    const batch = await trpcBatch(app, [wrong(STAFF, 10), wrong(STAFF, 11)], { ip });
    expect(batchCodes(batch)).toEqual(["TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS"]);
    expect(Number(batch.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("refuses a 20 MB body with a JSON 413 without buffering it, and its sender gets the answer", async () => {
    const big = { email: STAFF, password: "x".repeat(20 * 1024 * 1024) };
    const started = Date.now();
    const r = await trpc(app, "mutation", "auth.signIn", big, { ip: "203.0.113.5" });
    expect(r.status).toBe(413);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(trpcCode(r)).toBe("PAYLOAD_TOO_LARGE");
    // Reading 20 MB and parsing it would take seconds more on a busy machine than refusing it on its length.
    expect(Date.now() - started).toBeLessThan(8_000);
    // Chunked (no Content-Length) is measured while it is read.
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 100; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(1024)));
        controller.enqueue(new TextEncoder().encode("{}"));
        controller.close();
      },
    });
    const chunked = await fetch(`${app.baseUrl}/api/trpc/auth.signIn`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it("refuses a batch of more than 10 calls before running any of them", async () => {
    const ip = "203.0.113.6";
    const r = await trpcBatch(
      app,
      Array.from({ length: 100 }, (_, i) => wrong(`nobody${i}@example.com`, i)),
      { ip },
    );
    expect(r.status).toBe(400);
    // Nothing was counted for this client: a normal sign-in from it still checks the password.
    const after = await trpc(app, "mutation", "auth.signIn", wrong(STAFF, 0).input, { ip });
    expect(trpcCode(after)).toBe("UNAUTHORIZED");
  });

  it("writes sign-in, sign-out, failed sign-in and throttling to the audit log", async () => {
    const ip = "203.0.113.7";
    const token = await signIn(app, STAFF, ip);
    await trpc(app, "mutation", "auth.signOut", undefined, { ip, token });
    for (let i = 0; i < 6; i++) await trpc(app, "mutation", "auth.signIn", wrong(STAFF, i).input, { ip });
    const actions = await pollUntil(async () => {
      const rows = await databaseOf(app.db.rt).prisma.auditLog.findMany({
        where: { action: { startsWith: "session." } },
        orderBy: { id: "asc" },
      });
      const forIp = rows.filter((r) => JSON.stringify(r.after ?? {}).includes(ip));
      return forIp.some((r) => r.action === "session.throttled") ? forIp.map((r) => r.action) : undefined;
    });
    expect(actions).toEqual(
      expect.arrayContaining([
        "session.signIn",
        "session.signOut",
        "session.signInFailed",
        "session.throttled",
      ]),
    );
    expect(actions?.filter((a) => a === "session.signInFailed")).toHaveLength(5);
  });
});

describe("session cookie without TRUST_PROXY", () => {
  const app = useInProcessApp({ TRUST_PROXY: "0" });

  it("does not mark the cookie Secure because a client says X-Forwarded-Proto: https", async () => {
    const r = await trpc(
      app,
      "mutation",
      "auth.signIn",
      { email: ADMIN, password: PASSWORD },
      { headers: { "X-Forwarded-Proto": "https" } },
    );
    expect(r.status).toBe(200);
    const cookie = r.headers.get("set-cookie") ?? "";
    expect(cookie).toContain("petstore_session=");
    expect(cookie).not.toMatch(/;\s*Secure/i);
    expect(r.headers.get("strict-transport-security")).toBeNull();
  });
});
