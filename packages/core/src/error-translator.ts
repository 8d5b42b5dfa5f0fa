/**
 * The one error translator (docs/contract.md section 1 "Error body"): whatever a request or command threw
 * becomes an `AppError`, which carries the status, code, message and headers of the answer. REST's error
 * handler, tRPC's error middleware and formatter, the app's Node server (server.ts) and the CLI's `--json`
 * output all translate through `translateError`, so one failure reads the same everywhere:
 * - a domain error (`AppError`) stays as it is;
 * - a database that cannot be reached is 503 `service_unavailable` with `Retry-After`;
 * - a transaction aborted by a concurrent one (deadlock, serialization failure) is 409 `conflict`: nothing was
 *   written, and the same request can be sent again;
 * - anything else is 500 `internal_error`, whose message names no internal detail.
 * Imports nothing but contracts, so light entry points (server.ts) can load it (`@petstore/core/errors`).
 */
import { AppError } from "@petstore/contracts";

/** Seconds a client should wait before retrying while the database is unreachable (`Retry-After`). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** What kind of failure was translated: `unavailable` and `unexpected` ones deserve a log line. */
export type ErrorKind = "domain" | "unavailable" | "unexpected";

export interface TranslatedError {
  /** The answer: `status`, `code`, `message`, `details`, `headers`; `toBody()` gives the Error body. */
  error: AppError;
  kind: ErrorKind;
}

const CONNECTION_ERROR =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|Connection terminated|connect(ion)? timeout|timeout exceeded when trying to connect|Query read timeout|terminating connection|Can't reach database|database system is (starting up|shutting down)|too many clients|PGlite is closed/i;
/**
 * Prisma and PostgreSQL codes of a database that cannot serve within its bounds (docs/operations.md "Timeouts and limits"):
 * unreachable or closed connections, no free connection or transaction slot in time (P2024, P2028), a statement
 * or an idle transaction cancelled by the server's timeouts (57014, 25P03, 57P05), too many clients, shutdown.
 */
const CONNECTION_CODES = new Set([
  "P1001",
  "P1002",
  "P1008",
  "P1017",
  "P2024",
  "P2028",
  "57P01",
  "57P03",
  "57P05",
  "57014",
  "25P03",
  "53300",
  "08006",
  "08001",
  "08003",
]);
const CONNECTION_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);

type ErrorLike = {
  name?: string;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  errors?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
};

/** `error` and its causes, at most six deep; a driver adapter's error reaches Prisma's error in `meta`. */
function* causeChain(error: unknown): Generator<ErrorLike> {
  for (let e: unknown = error, depth = 0; e && depth < 6; depth++) {
    const err = e as ErrorLike;
    yield err;
    e = err.cause ?? err.meta?.driverAdapterError?.cause;
  }
}

const hasCode = (err: ErrorLike, codes: Set<string>) =>
  (typeof err.code === "string" && codes.has(err.code)) ||
  (typeof err.originalCode === "string" && codes.has(err.originalCode));

/** True when `error` (or its cause chain, or an AggregateError's members) says the database could not be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const err of causeChain(error)) {
    if (err.name === "PrismaClientInitializationError") return true;
    if (hasCode(err, CONNECTION_CODES)) return true;
    if (typeof err.kind === "string" && CONNECTION_KINDS.has(err.kind)) return true;
    if (typeof err.message === "string" && CONNECTION_ERROR.test(err.message)) return true;
    if (Array.isArray(err.errors) && err.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}

/**
 * Codes of a transaction PostgreSQL aborted because a concurrent one conflicted with it: a deadlock (40P01) or
 * a serialization failure (40001), which Prisma reports as P2034. PostgreSQL's answer to both is "retry the
 * transaction" (PostgreSQL manual, 13.4 "Data Consistency Checks at the Application Level").
 */
const WRITE_CONFLICT_CODES = new Set(["P2034", "40001", "40P01"]);

/** True when `error` (or its cause chain) is a transaction aborted by a deadlock or a serialization failure. */
export function isWriteConflict(error: unknown): boolean {
  for (const err of causeChain(error)) {
    if (hasCode(err, WRITE_CONFLICT_CODES) || err.kind === "TransactionWriteConflict") return true;
  }
  return false;
}

/** 503 `service_unavailable` with `Retry-After` (the database is unreachable, or the service is starting). */
export function unavailableError(
  message = "The service is temporarily unavailable; retry shortly.",
): AppError {
  return new AppError("service_unavailable", message, undefined, {
    "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS),
  });
}

/** 503 while the runtime (database, services) could not be opened yet: the service is starting or cut off. */
export function notReadyError(): AppError {
  return unavailableError("The service is starting or its database is unreachable; retry shortly.");
}

/**
 * Translates anything thrown into the answer to give.
 * @param thrown the error (any value)
 * @param context `requestId`, named in the message of an unexpected error so support can find its log line
 * @returns the AppError to answer with and the kind of failure; for `unavailable` and `unexpected` the
 *   AppError's `cause` is `thrown` (for logs only: never sent).
 */
export function translateError(thrown: unknown, context: { requestId?: string } = {}): TranslatedError {
  if (AppError.is(thrown)) return { error: thrown, kind: "domain" };
  if (isDatabaseUnavailable(thrown)) {
    return { error: Object.assign(unavailableError(), { cause: thrown }), kind: "unavailable" };
  }
  if (isWriteConflict(thrown)) {
    const conflict = new AppError(
      "conflict",
      "A concurrent change conflicted with this one; retry the request.",
    );
    return { error: Object.assign(conflict, { cause: thrown }), kind: "domain" };
  }
  const message = context.requestId
    ? `An unexpected error occurred (request id ${context.requestId}).`
    : "An unexpected error occurred.";
  return {
    error: Object.assign(new AppError("internal_error", message), { cause: thrown }),
    kind: "unexpected",
  };
}
