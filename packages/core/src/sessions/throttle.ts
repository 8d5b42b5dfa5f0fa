/**
 * Sign-in throttling (PRODUCT.md section 4): at most 5 failed attempts per account and per client IP in
 * any 15 minutes. Failures are rows in SignInFailure; an account's rows are cleared by a successful
 * sign-in, an IP's simply age out. Unknown emails are counted like known ones, so throttling never tells
 * whether an account exists.
 */
import type { CoreDeps } from "../deps.ts";

export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
const RETENTION_MS = 24 * 3600_000;

/** `blocked` with whole seconds until the oldest counted failure leaves the window. */
export type ThrottleVerdict = { blocked: false } | { blocked: true; retryAfterSeconds: number };

export function createSignInThrottle({ prisma, clock }: Pick<CoreDeps, "prisma" | "clock">) {
  async function verdictFor(where: { email: string } | { ip: string }, now: Date): Promise<ThrottleVerdict> {
    const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS);
    const recent = await prisma.signInFailure.findMany({
      where: { ...where, at: { gt: since } },
      orderBy: { at: "desc" },
      take: SIGN_IN_MAX_FAILURES,
      select: { at: true },
    });
    const oldest = recent[SIGN_IN_MAX_FAILURES - 1];
    if (!oldest) return { blocked: false };
    const ms = oldest.at.getTime() + SIGN_IN_WINDOW_MS - now.getTime();
    return { blocked: true, retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) };
  }

  return {
    /** Whether a sign-in for `email` from `ip` must be refused now (the longer wait of the two wins). */
    async check(email: string, ip: string): Promise<ThrottleVerdict> {
      const now = clock();
      const [byEmail, byIp] = await Promise.all([verdictFor({ email }, now), verdictFor({ ip }, now)]);
      if (byEmail.blocked && byIp.blocked) {
        return {
          blocked: true,
          retryAfterSeconds: Math.max(byEmail.retryAfterSeconds, byIp.retryAfterSeconds),
        };
      }
      return byEmail.blocked ? byEmail : byIp;
    },

    /** Records a failed attempt (and drops failures older than a day). */
    async recordFailure(email: string, ip: string): Promise<void> {
      const now = clock();
      await prisma.signInFailure.create({ data: { email, ip, at: now } });
      await prisma.signInFailure.deleteMany({
        where: { at: { lt: new Date(now.getTime() - RETENTION_MS) } },
      });
    },

    /** Forgets an account's failures after it signed in successfully. */
    async clearAccount(email: string): Promise<void> {
      await prisma.signInFailure.deleteMany({ where: { email } });
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
