/**
 * The admin's API key list (docs/contract.md section 4 "API keys"): one page, newest first, searched by
 * name (any case, anywhere in it) or display prefix (from its start), filtered by plan and by state. The
 * state filter is the same rule as `apiKeyState` (view.ts), written as a database condition for `now`.
 */
import type { ApiKeySearch, ApiKeyStateFilter } from "@petstore/contracts";
import type { Prisma } from "@petstore/db";
import type { CoreDeps } from "../deps.ts";
import { likeLiteral } from "../like.ts";
import { liveWhere, notExpiredWhere, notRevokedWhere } from "./policy.ts";
import { type ApiKeyView, EXPIRING_SOON_MS, toView } from "./view.ts";

/** The database condition for keys in `state` at `now` (mirrors `apiKeyState`). */
export function stateCondition(state: ApiKeyStateFilter, now: Date): Prisma.ApiKeyWhereInput {
  const notRevoked = notRevokedWhere(now);
  const notExpired = notExpiredWhere(now);
  const notBanned: Prisma.ApiKeyWhereInput = { OR: [{ bannedUntil: null }, { bannedUntil: { lte: now } }] };
  const soon = new Date(now.getTime() + EXPIRING_SOON_MS);
  switch (state) {
    case "working":
      return liveWhere(now);
    case "revoked":
      return { revokedAt: { lte: now } };
    case "expired":
      return { AND: [notRevoked, { expiresAt: { lte: now } }] };
    case "banned":
      return { AND: [notRevoked, notExpired, { bannedUntil: { gt: now } }] };
    case "expiring":
      return { AND: [notRevoked, notBanned, { expiresAt: { gt: now, lt: soon } }] };
    case "active":
      return {
        AND: [notRevoked, notBanned, { OR: [{ expiresAt: null }, { expiresAt: { gte: soon } }] }],
      };
  }
}

export function createApiKeySearch({ prisma, clock }: Pick<CoreDeps, "prisma" | "clock">) {
  /**
   * One page of keys matching `query` (see ApiKeySearch in contracts), newest first.
   * @returns `{rows: ApiKeyView[], total}`, `total` counting every match.
   */
  return async function search(query: ApiKeySearch): Promise<{ rows: ApiKeyView[]; total: number }> {
    const now = clock();
    const text = query.query?.trim();
    const where: Prisma.ApiKeyWhereInput = {
      AND: [
        text
          ? {
              OR: [
                { name: { contains: likeLiteral(text), mode: "insensitive" } },
                { prefix: { startsWith: likeLiteral(text.replace(/…$/, "")) } },
              ],
            }
          : {},
        query.plan ? { planName: query.plan } : {},
        query.state ? stateCondition(query.state, now) : {},
      ],
    };
    const [total, rows] = await prisma.$transaction([
      prisma.apiKey.count({ where }),
      prisma.apiKey.findMany({
        where,
        include: { plan: true },
        orderBy: [{ createdAt: "desc" }, { id: "asc" }],
        skip: (query.page - 1) * query.pageSize,
        take: query.pageSize,
      }),
    ]);
    return { total, rows: rows.map((r) => toView(r, now)) };
  };
}
