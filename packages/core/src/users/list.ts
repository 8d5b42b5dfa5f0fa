/**
 * The admins' Users list: every staff member and admin (members of consumer accounts are their accounts' own),
 * sorted by one column in the database with the email (unique) breaking ties, so the order is total and the same
 * on every call. Names sort without regard to case, dates as dates, the role by rank (admin before staff) and the
 * state by meaning (active before deactivated), never by their text.
 */
import type { UserListSort, UserSort } from "@petstore/contracts";
import { Prisma, type PrismaClient } from "@petstore/db";
import type { UserRoleName, UserView } from "./service.ts";

const SORT_KEYS: Record<UserSort, Prisma.Sql> = {
  name: Prisma.sql`lower(u."name")`,
  email: Prisma.sql`u."email"`,
  role: Prisma.sql`CASE u."role" WHEN 'admin' THEN 0 ELSE 1 END`,
  state: Prisma.sql`CASE WHEN u."active" THEN 0 ELSE 1 END`,
  sessions: Prisma.sql`"activeSessions"`,
  createdAt: Prisma.sql`u."createdAt"`,
};

interface UserRow {
  id: string;
  email: string;
  name: string;
  role: UserRoleName;
  active: boolean;
  createdAt: Date;
  activeSessions: number;
}

/**
 * Staff and admins in `sort`'s order, each with the number of sessions not expired at `now`.
 * @returns every such user (there are few: no paging).
 */
export async function listStaff(
  prisma: Pick<PrismaClient, "$queryRaw">,
  now: Date,
  sort: UserListSort,
): Promise<UserView[]> {
  const direction = sort.sortDirection === "desc" ? Prisma.sql`DESC` : Prisma.sql`ASC`;
  const rows = await prisma.$queryRaw<UserRow[]>`
    SELECT u."id"::text AS "id", u."email", u."name", u."role"::text AS "role", u."active", u."createdAt",
           (SELECT count(*)::int FROM "Session" s WHERE s."userId" = u."id" AND s."expiresAt" > ${now})
             AS "activeSessions"
    FROM "User" u
    WHERE u."accountId" IS NULL
    ORDER BY ${SORT_KEYS[sort.sortBy]} ${direction}, u."email" ASC`;
  return rows.map((u) => ({ ...u, createdAt: u.createdAt.toISOString() }));
}
