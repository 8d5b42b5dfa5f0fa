/**
 * Dashboard users (docs/contract.md section 4): staff and admins. Create (CLI and dashboard), list, change role,
 * deactivate/reactivate. Deactivating ends the user's sessions in the same transaction. Every change is
 * audited. The last active admin can neither be demoted nor deactivated, so nobody is locked out: a demotion or
 * deactivation first locks the rows of every active admin (`SELECT ... FOR UPDATE`, in id order), so concurrent
 * changes that could lower their number queue behind each other and each one counts what the others left
 * (docs/contract.md section 4, "Invariants under concurrency").
 */
import { AppError, type UserCreate, UserListSort } from "@petstore/contracts";
import { Prisma, type User } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { listStaff } from "./list.ts";
import { createPasswordWork, type PasswordWork } from "./password.ts";

/** Staff roles run the store; member roles belong to a consumer account (accounts/service.ts). */
export type StaffRoleName = "staff" | "admin";
export type MemberRoleName = "owner" | "developer";
export type UserRoleName = StaffRoleName | MemberRoleName;

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: UserRoleName;
  active: boolean;
  createdAt: string;
  /** Sessions that have not expired. */
  activeSessions: number;
}

/** What the audit log keeps of a user: never the password hash. */
const auditView = (user: User) => ({ ...user, passwordHash: undefined });

function isUniqueViolation(error: unknown) {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

type UserWithSessionCount = User & { _count: { sessions: number } };

function toView(u: UserWithSessionCount): UserView {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    active: u.active,
    createdAt: u.createdAt.toISOString(),
    activeSessions: u._count.sessions,
  };
}

/**
 * The user service; `passwords` is the instance's cap on password hashing (createCore shares one with the
 * sign-in), by default a cap of its own.
 */
export function createUserService(
  { prisma, clock, config }: Pick<CoreDeps, "prisma" | "clock" | "config">,
  passwords: PasswordWork = createPasswordWork(
    config.passwordHashing.concurrency,
    config.passwordHashing.queue,
  ),
) {
  const notFound = (id: string) => new AppError("not_found", `No user with id ${id}.`);
  /** Prisma `include` counting the sessions that have not expired. */
  const liveSessions = () => ({
    _count: { select: { sessions: { where: { expiresAt: { gt: clock() } } } } },
  });

  /** One user by id. @throws AppError not_found. */
  async function get(id: string): Promise<UserView> {
    const u = await prisma.user.findFirst({ where: { id, accountId: null }, include: liveSessions() });
    if (!u) throw notFound(id);
    return toView(u);
  }

  /**
   * Locks the rows of the active admins (in id order, so that concurrent callers queue instead of
   * deadlocking) and returns their ids. Under READ COMMITTED a caller that waited re-reads the rows it
   * locks, so it sees the demotions and deactivations committed before it got the lock.
   */
  async function lockActiveAdmins(tx: Prisma.TransactionClient): Promise<Set<string>> {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT "id"::text AS "id" FROM "User" WHERE "role" = 'admin' AND "active" ORDER BY "id" FOR UPDATE`;
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Refuses a change that would leave no active admin. `admins` are the active admins locked by
   * `lockActiveAdmins` in the same transaction, `user` the target as read after that lock.
   */
  function ensureAnotherActiveAdmin(admins: Set<string>, user: User, change: string) {
    if (user.role !== "admin" || !user.active) return;
    if ([...admins].some((id) => id !== user.id)) return;
    throw new AppError("conflict", `${user.email} is the last active admin and cannot be ${change}.`);
  }

  return {
    /**
     * Creates a user with a scrypt-hashed password at the configured cost (used by `petstore users create` and the
     * dashboard); the hash waits for a free slot of the instance's password work.
     * @throws AppError validation_failed (path `email`) when the email is already in use.
     */
    async create(input: UserCreate, actor: Actor): Promise<UserView> {
      const passwordHash = await passwords.hash(input.password, config.passwordHashCost);
      try {
        return await prisma.$transaction(async (tx) => {
          const row = await tx.user.create({
            data: { email: input.email, name: input.name, role: input.role, passwordHash },
          });
          await writeAudit(tx, {
            actor,
            action: "user.create",
            entityType: "user",
            entityId: row.id,
            after: auditView(row),
          });
          return toView({ ...row, _count: { sessions: 0 } });
        });
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new AppError("validation_failed", `A user with email ${input.email} already exists.`, [
            { path: "email", message: "is already in use" },
          ]);
        }
        throw error;
      }
    },

    /**
     * All staff and admins (members of consumer accounts are the accounts' own) in `sort`'s order (list.ts), by
     * default admins first, then by email.
     */
    list(sort: UserListSort = UserListSort.parse({})): Promise<UserView[]> {
      return listStaff(prisma, clock(), sort);
    },

    /** How many users exist (the bootstrap creates a demo admin only into an empty table). */
    count(): Promise<number> {
      return prisma.user.count();
    },

    /**
     * Changes a user's role. `actingUserId` is the signed-in user making the change, who may not change
     * their own role. @throws AppError not_found; conflict for one's own role or the last admin.
     */
    async setRole(
      input: { id: string; role: StaffRoleName },
      actor: Actor,
      actingUserId?: string,
    ): Promise<UserView> {
      if (input.id === actingUserId) throw new AppError("conflict", "You cannot change your own role.");
      await prisma.$transaction(async (tx) => {
        const admins = input.role === "admin" ? undefined : await lockActiveAdmins(tx);
        const before = await tx.user.findFirst({ where: { id: input.id, accountId: null } });
        if (!before) throw notFound(input.id);
        if (before.role === input.role) return;
        if (admins) ensureAnotherActiveAdmin(admins, before, "demoted");
        const after = await tx.user.update({ where: { id: before.id }, data: { role: input.role } });
        await writeAudit(tx, {
          actor,
          action: "user.setRole",
          entityType: "user",
          entityId: before.id,
          before: { role: before.role },
          after: { role: after.role },
        });
      });
      return get(input.id);
    },

    /**
     * Deactivates (ending every session at once) or reactivates a user; nobody can deactivate themselves.
     * @throws AppError not_found; conflict for oneself or the last active admin.
     */
    async setActive(
      input: { id: string; active: boolean },
      actor: Actor,
      actingUserId?: string,
    ): Promise<UserView> {
      if (input.id === actingUserId && !input.active)
        throw new AppError("conflict", "You cannot deactivate your own account.");
      await prisma.$transaction(async (tx) => {
        const admins = input.active ? undefined : await lockActiveAdmins(tx);
        const before = await tx.user.findFirst({ where: { id: input.id, accountId: null } });
        if (!before) throw notFound(input.id);
        if (admins) {
          ensureAnotherActiveAdmin(admins, before, "deactivated");
          await tx.session.deleteMany({ where: { userId: before.id } });
        }
        if (before.active === input.active) return;
        await tx.user.update({ where: { id: before.id }, data: { active: input.active } });
        await writeAudit(tx, {
          actor,
          action: input.active ? "user.activate" : "user.deactivate",
          entityType: "user",
          entityId: before.id,
          before: { active: before.active },
          after: { active: input.active },
        });
      });
      return get(input.id);
    },

    get,
  };
}

export type UserService = ReturnType<typeof createUserService>;
