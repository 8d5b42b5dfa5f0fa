/**
 * How the database refused a statement, read from Prisma's errors (P2003 from the query builder, or, from a raw
 * statement, P2010 carrying the driver adapter's error kind: the same kinds on PostgreSQL and PGlite) and from
 * node-postgres' (the SQLSTATE of a direct statement, db's `queryRows`).
 */
import { Prisma } from "@petstore/db";

/** The driver adapter's kind of each SQLSTATE a direct statement's refusal can carry (PostgreSQL, appendix A). */
const KIND_OF_SQLSTATE: Record<string, string> = {
  "23503": "ForeignKeyConstraintViolation",
  "23505": "UniqueConstraintViolation",
  "23502": "NullConstraintViolation",
  "23001": "RestrictViolation",
  "22003": "ValueOutOfRange",
  "22P02": "InvalidInputValue",
  "22001": "LengthMismatch",
};

/** The driver adapter's error kind (e.g. `ForeignKeyConstraintViolation`), or P2003's or the SQLSTATE's equivalent. */
function refusalKind(error: unknown): string | undefined {
  // node-postgres' DatabaseError: the server's severity and SQLSTATE code.
  const { severity, code } = (error ?? {}) as { severity?: unknown; code?: unknown };
  if (typeof severity === "string" && typeof code === "string") return KIND_OF_SQLSTATE[code];
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return undefined;
  if (error.code === "P2003") return "ForeignKeyConstraintViolation";
  return (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause?.kind;
}

/** Kinds meaning the database refused the statement for its data: nothing was written. */
const REFUSED_FOR_DATA = new Set([
  "ForeignKeyConstraintViolation",
  "UniqueConstraintViolation",
  "NullConstraintViolation",
  "RestrictViolation",
  "ValueOutOfRange",
  "InvalidInputValue",
  "LengthMismatch",
]);

/** A foreign key was violated (for pets: no category with that id). */
export const isForeignKeyViolation = (error: unknown) =>
  refusalKind(error) === "ForeignKeyConstraintViolation";

/** The database refused the statement for the data it carried, so it wrote nothing. */
export const isRefusedForData = (error: unknown) => REFUSED_FOR_DATA.has(refusalKind(error) ?? "");

/** A unique index refused the statement (for orders: another placed order holds the animal). */
export const isUniqueViolation = (error: unknown) => refusalKind(error) === "UniqueConstraintViolation";
