/**
 * Bounded sign-in work (docs/contract.md section 4, "Sign-in throttling"; docs/operations.md
 * `PASSWORD_HASH_CONCURRENCY`, `PASSWORD_HASH_QUEUE`): password checks run under a per-instance cap, an attempt
 * beyond it and its short queue is refused at once (rate_limited, Retry-After), no database connection is held while a password is
 * hashed, and an unknown email costs exactly what a known one does (one scrypt at the configured cost, under
 * the same cap).
 *
 * scrypt is held at a gate (node:crypto mocked) so that "while a sign-in hashes" is a state of the test, not a
 * race against a clock.
 */
import type { BinaryLike, ScryptOptions } from "node:crypto";
import { loadConfig } from "@petstore/config";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Runtime } from "../src/runtime.ts";
import type { TemporaryDatabase } from "../src/testing/index.ts";

type Callback = (error: Error | null, key: Buffer) => void;

/** The scrypt gate: open, scrypt runs at once; closed, calls wait in `held` until `open()`. */
const gate = vi.hoisted(() => ({
  closed: false,
  /** N of every scrypt call made. */
  calls: [] as number[],
  held: [] as Array<() => void>,
  /** Resolvers waiting for `held` to reach a length. */
  watchers: [] as Array<{ count: number; resolve: () => void }>,
}));

vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  const scrypt = (
    password: BinaryLike,
    salt: BinaryLike,
    length: number,
    options: ScryptOptions,
    callback: Callback,
  ) => {
    gate.calls.push(options.N ?? 0);
    const run = () => real.scrypt(password, salt, length, options, callback);
    if (!gate.closed) return run();
    gate.held.push(run);
    for (const w of gate.watchers.filter((w) => gate.held.length >= w.count)) w.resolve();
  };
  return { ...real, default: { ...real, scrypt }, scrypt };
});

/** Resolves once `count` scrypt calls wait at the closed gate. */
const heldAt = (count: number) =>
  new Promise<void>((resolve) => {
    if (gate.held.length >= count) resolve();
    else gate.watchers.push({ count, resolve });
  });

function openGate() {
  gate.closed = false;
  for (const run of gate.held.splice(0)) run();
}

// The worker's module cache may hold these modules from files run before this one, bound to the real
// node:crypto: they are loaded afresh, after the mock.
vi.resetModules();
const { AppError } = await import("@petstore/contracts");
const { databaseOf } = await import("../src/database/operations.ts");
const { createLogger } = await import("../src/logger.ts");
const { openRuntime } = await import("../src/runtime.ts");
const { createMigratedDatabase } = await import("../src/testing/index.ts");
const { createPasswordWork, hashPassword } = await import("../src/users/password.ts");

const PASSWORD = "a long enough password";
const KNOWN = "known@sign-in-work.test";

describe("createPasswordWork", () => {
  it("gives slots in order, queues at most `queue` sign-ins and refuses the next at once; staff's work always waits", async () => {
    const work = createPasswordWork(1, 1);
    const order: string[] = [];
    const first = await work.enter();
    expect(first).toBeTypeOf("function");
    const queued = work.enter()?.then((release) => {
      order.push("queued sign-in");
      return release;
    });
    expect(queued).toBeInstanceOf(Promise);
    expect(work.full()).toBe(true);
    expect(work.enter()).toBeUndefined();
    const staff = work.acquire().then((release) => {
      order.push("staff");
      return release;
    });
    first?.();
    first?.(); // a second release of the same slot gives nothing back
    (await queued)?.();
    (await staff)();
    expect(order).toEqual(["queued sign-in", "staff"]);
    // Every slot is free again.
    const again = [work.enter(), work.enter()];
    expect(again[0]).toBeInstanceOf(Promise);
    expect(again[1]).toBeInstanceOf(Promise);
    expect(work.enter()).toBeUndefined();
    const fresh = createPasswordWork(1, 1);
    expect(fresh.full()).toBe(false);
    await fresh.enter();
    expect(fresh.full()).toBe(false);
  });
});

describe("sign-in work under a cap of 1 (no queue) on a pool of 1 connection", () => {
  let rt: Runtime;
  let db: TemporaryDatabase;
  let ip = 0;
  /** A sign-in from an address of its own (no throttle shared between the cases). */
  const signIn = (email: string, password = PASSWORD) =>
    rt.sessions.signIn({ email, password }, { ip: `198.51.100.${++ip}` });

  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_sign_in_work");
    const config = loadConfig({
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: "1",
      LOG_LEVEL: "silent",
      PASSWORD_HASH_COST: "10",
      PASSWORD_HASH_CONCURRENCY: "1",
      PASSWORD_HASH_QUEUE: "0",
    });
    rt = await openRuntime({ config, logger: createLogger("silent") });
    await rt.users.create({ email: KNOWN, name: "Known", role: "staff", password: PASSWORD }, "test");
  });
  afterAll(async () => {
    openGate();
    await rt?.close();
    await db?.drop();
  });
  beforeEach(() => {
    openGate();
    gate.calls.length = 0;
  });

  /**
   * Starts `first` with the gate closed and resolves once it hashes (its scrypt call is held), with its
   * outcome still to come (wrapped: an async function would otherwise wait for it).
   */
  async function hashing<T>(first: () => Promise<T>): Promise<{ outcome: Promise<T> }> {
    gate.closed = true;
    const outcome = first();
    outcome.catch(() => {});
    await heldAt(1);
    return { outcome };
  }

  /** What `attempt` does while another sign-in hashes: refused at once, or it reaches scrypt too. */
  async function whileBusy(attempt: () => Promise<unknown>) {
    const reachedHash = heldAt(2).then(() => "reached the hash instead of being refused");
    return Promise.race([
      attempt().then(
        () => "signed in",
        (error: unknown) => error,
      ),
      reachedHash,
    ]);
  }

  it("refuses a second concurrent sign-in at once with rate_limited and Retry-After", async () => {
    const { outcome: first } = await hashing(() => signIn(KNOWN));
    const refused = await whileBusy(() => signIn(KNOWN));
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "rate_limited", headers: { "Retry-After": "1" } });
    openGate();
    await expect(first).resolves.toMatchObject({ user: { email: KNOWN } });
    // The cap is free again.
    await expect(signIn(KNOWN)).resolves.toMatchObject({ user: { email: KNOWN } });
  });

  it("holds no database connection while hashing: the pool's one connection serves a query meanwhile", async () => {
    const { outcome: first } = await hashing(() => signIn(KNOWN, "a wrong password"));
    await expect(databaseOf(rt).prisma.user.count()).resolves.toBe(1);
    openGate();
    await expect(first).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("an unknown email costs one scrypt at the configured cost, like a known one, under the same cap", async () => {
    const { outcome: unknown } = await hashing(() => signIn("nobody@sign-in-work.test"));
    const refused = await whileBusy(() => signIn(KNOWN));
    expect(refused).toMatchObject({ code: "rate_limited", headers: { "Retry-After": "1" } });
    openGate();
    await expect(unknown).rejects.toMatchObject({ code: "unauthorized" });
    const unknownCalls = gate.calls.splice(0);
    await expect(signIn(KNOWN, "a wrong password")).rejects.toMatchObject({ code: "unauthorized" });
    const knownCalls = gate.calls.splice(0);
    expect(unknownCalls).toEqual([2 ** 10]);
    expect(knownCalls).toEqual(unknownCalls);
    // And the other way round: an unknown email is refused while a known one hashes.
    const { outcome: known } = await hashing(() => signIn(KNOWN));
    expect(await whileBusy(() => signIn("nobody-else@sign-in-work.test"))).toMatchObject({
      code: "rate_limited",
    });
    openGate();
    await known;
  });

  it("staff's password work waits for a slot instead of being refused", async () => {
    const { outcome: first } = await hashing(() => signIn(KNOWN));
    const created = rt.users.create(
      { email: "queued@sign-in-work.test", name: "Queued", role: "staff", password: PASSWORD },
      "test",
    );
    // It waits for the slot: a turn of the event loop later it has not reached scrypt.
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.held).toHaveLength(1);
    openGate();
    await first;
    await expect(created).resolves.toMatchObject({ email: "queued@sign-in-work.test" });
  });

  it("a sign-in rehashes a password stored at another cost, so that every account costs the same to check", async () => {
    const prisma = databaseOf(rt).prisma;
    const email = "legacy@sign-in-work.test";
    await rt.users.create({ email, name: "Legacy", role: "staff", password: PASSWORD }, "test");
    await prisma.user.update({ where: { email }, data: { passwordHash: await hashPassword(PASSWORD, 11) } });
    gate.calls.length = 0;
    await expect(signIn(email)).resolves.toMatchObject({ user: { email } });
    expect(gate.calls).toEqual([2 ** 11, 2 ** 10]);
    expect((await prisma.user.findUniqueOrThrow({ where: { email } })).passwordHash).toMatch(
      /^scrypt\$1024\$/,
    );
    gate.calls.length = 0;
    await expect(signIn(email)).resolves.toMatchObject({ user: { email } });
    expect(gate.calls).toEqual([2 ** 10]);
  });
});
