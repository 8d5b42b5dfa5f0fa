/**
 * Waiting helpers of the tests. They read `performance.now()`, not `Date.now()`, so that they keep working
 * while a test fakes the Date clock.
 */

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Retries `check` every 50 ms until it resolves, at most `timeoutMs` (real timers; unlike `vi.waitFor` it
 * does not move a faked clock).
 * @returns what `check` resolved to.
 * @throws the last error of `check` when it never passes.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

/**
 * Calls `check` every 200 ms until it returns a truthy value, at most `timeoutMs`.
 * @returns the truthy value, or the last (falsy) one when time runs out.
 */
export async function pollUntil<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value || performance.now() > deadline) return value;
    await sleep(200);
  }
}
