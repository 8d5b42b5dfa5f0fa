/**
 * The state of the process's dependencies (the database, the rate-limit store) as its requests and checks find
 * them, for operators: one log line when a dependency goes down (with the first line of the error that showed
 * it, no stack) and one when it answers again (how long it was down, how many requests were refused meanwhile),
 * and counters for /metrics. During an outage every refused request still writes its own request line with the
 * error code; what is not repeated is the error. Every call is constant time (it sits on the request path).
 */
import type { Logger } from "pino";

/** The dependencies tracked: `database`, and `rateLimitStore` (Redis or Upstash; fails open). */
export type Dependency = "database" | "rateLimitStore";

export const DEPENDENCIES: readonly Dependency[] = ["database", "rateLimitStore"];

export interface DependencyStatus {
  /**
   * Records that `dependency` could not be used (`error`, the cause); `refused` when a request was answered
   * 503 for it. Logs one `warn` line when the dependency was up until now.
   */
  down(dependency: Dependency, error: unknown, refused?: boolean): void;
  /** Records that `dependency` answered. Logs one `info` line when it was down until now. */
  up(dependency: Dependency): void;
  /** Whether `dependency` is up, as last found (true until found down). */
  isUp(dependency: Dependency): boolean;
  /** Requests answered 503 because `dependency` was down, since the process started. */
  refused(dependency: Dependency): number;
}

/** The first line of an error's message: what the log says about the cause, without a stack. */
export function errorSummary(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const message = (typeof e?.message === "string" ? e.message : String(error)).split("\n")[0] ?? "";
  return (typeof e?.code === "string" && !message.includes(e.code) ? `${e.code}: ${message}` : message).slice(
    0,
    300,
  );
}

/**
 * @param logger where the state changes are logged
 * @param now the time in ms (the length of an outage)
 */
export function createDependencyStatus(logger: Logger, now: () => number = Date.now): DependencyStatus {
  interface State {
    up: boolean;
    /** When it went down (ms). */
    since: number;
    refusedTotal: number;
    /** `refusedTotal` when it went down. */
    refusedAtDown: number;
  }
  const states = new Map<Dependency, State>(
    DEPENDENCIES.map((d) => [d, { up: true, since: 0, refusedTotal: 0, refusedAtDown: 0 }]),
  );
  const stateOf = (dependency: Dependency) => {
    const state = states.get(dependency);
    if (!state) throw new Error(`unknown dependency ${dependency}`);
    return state;
  };
  return {
    down(dependency, error, refused = false) {
      const s = stateOf(dependency);
      if (refused) s.refusedTotal++;
      if (!s.up) return;
      s.up = false;
      s.since = now();
      s.refusedAtDown = s.refusedTotal - (refused ? 1 : 0);
      logger.warn(
        { dependency, state: "down", error: errorSummary(error) },
        dependency === "database"
          ? "database unreachable: requests that need it are answered 503 until it is back"
          : "rate-limit store unreachable: requests are let through unlimited until it is back",
      );
    },
    up(dependency) {
      const s = stateOf(dependency);
      if (s.up) return;
      s.up = true;
      logger.info(
        {
          dependency,
          state: "up",
          downForMs: now() - s.since,
          refusedRequests: s.refusedTotal - s.refusedAtDown,
        },
        `${dependency === "database" ? "database" : "rate-limit store"} reachable again`,
      );
    },
    isUp: (dependency) => stateOf(dependency).up,
    refused: (dependency) => stateOf(dependency).refusedTotal,
  };
}
