/**
 * Which part of the process answers a request (docs/architecture.md "Request paths"), by role
 * (PETSTORE_SERVE; docs/operations.md "Roles"):
 * - `/v1` and below: the REST app (roles `all` and `api`); the `dashboard` role answers only
 *   `/v1/openapi.json` there (the API reference at /docs reads it) and 404 otherwise;
 * - GET and HEAD of /healthz, /readyz, /metrics: the operational endpoints, in every role;
 * - everything else: the dashboard (roles `all` and `dashboard`; its JSON API /api/trpc and the downloads
 *   (/api/animals/export, /api/audit/export, /api/keys/export, /api/keys/deprecated-calls/export) and GitHub's
 *   secret-scanning reports in this process, dashboard-api.ts, the rest proxied to the Next.js process,
 *   dashboard.ts),
 *   404 in the `api` role. Such a request
 *   from a client without a session this process knows counts against that client address's dashboard bucket
 *   (`DASHBOARD_ANONYMOUS_PER_MINUTE`), in the `api` role too: anonymous traffic cannot starve the process, while
 *   signed-in staff are never limited (a session read valid too long ago to trust from memory spends the budget
 *   while it is read again). Once the bucket is used up, the 429 is held before it is answered (`holdRefusal`).
 *   Next's static files are not counted. Then, in the roles that serve the dashboard, the request takes a place
 *   in the process's dashboard pool (dashboard-admission.ts: one pool for clients without a session, one for
 *   signed-in staff, `DASHBOARD_CONCURRENCY` places and `DASHBOARD_QUEUE` waiting each, at most
 *   `DASHBOARD_QUEUE_TIMEOUT_MS`; in the `all` role the anonymous pool's places may be held
 *   `DASHBOARD_ANONYMOUS_SHARE` of the time, and an address's first `DASHBOARD_ANONYMOUS_BURST` requests in a
 *   minute may draw on a reserve beyond it), or is refused at once (429 with `Retry-After`; 503 after the
 *   queue's wait): many addresses within their budgets cannot occupy the process together, nor an anonymous
 *   flood lock staff out; `/v1` never waits for either pool. A browser's page load gets each refusal as a
 *   styled page that reloads itself (unavailable-page.ts `answerRefusal`), any other request JSON. A request
 *   whose client went away during these checks is not answered and takes no place.
 * While the database does not answer (checked at most once a second), dashboard pages get the styled 503 page
 * (unavailable-page.ts) instead of going to Next. Methods no route serves get a JSON 405, whatever the path; a
 * target the server cannot read a JSON 400 (request-target.ts); other methods on the probes a JSON 405. Every
 * dashboard answer (the JSON API's, and Next's) carries the pages' security headers, set here before the answer
 * adds its own (proxy.ts sets each page's policy), Next's 404 pages under /api/ included.
 * Every request the REST app does not answer is logged and counted here (request-log.ts; the REST app does its
 * own), by route: a page by its route pattern (page-routes.ts), the JSON API by tRPC procedure (`trpc:pets.list`),
 * a probe by its path, Next's static files as `static` (logged at debug only: a page load fetches dozens of them,
 * their line would drown the pages' while telling nothing the metrics do not), `*` for `OPTIONS *`, else
 * `unmatched`; a preflight or a 405 takes its path's route. While tracing is on, every request runs in a server
 * span (tracing/request-span.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServeRole } from "@petstore/config";
import { problems, SERVED_METHODS } from "@petstore/contracts";
import { type Runtime, withTimeout } from "@petstore/core";
import { stampClientIp, trustedClientIp } from "../client-ip.ts";
import { dashboardApiRoutes, isDashboardApiPath } from "../dashboard-api.ts";
import { OPS_PATHS } from "../ops/handler.ts";
import { isUnservedMethod, unservedMethod } from "../plain-responses.ts";
import { isRestPath } from "../rest/handler.ts";
import { baseSecurityHeaders } from "../security-headers.ts";
import { tracedListener } from "../tracing/request-span.ts";
import { readCookie, SESSION_COOKIE } from "../trpc/cookies.ts";
import { type Admission, createDashboardPool, type SetTimer } from "./dashboard-admission.ts";
import { jsonHeaders, requestIdOf, writeErrorAnswer } from "./error-answer.ts";
import type { PageRouteOf } from "./page-routes.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";
import { observeRequest, UNMATCHED } from "./request-log.ts";
import { checkTarget } from "./request-target.ts";
import {
  answerRefusal,
  answerUnavailable,
  isPageOrNavigation,
  requestIsHttps,
  returnAddress,
  UNAVAILABLE_PATH,
} from "./unavailable-page.ts";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface Routes {
  role: ServeRole;
  runtime: Pick<Runtime, "rateLimiter" | "sessions" | "config" | "health" | "logger">;
  api: Listener;
  ops: Listener;
  /** The dashboard process's proxy (dashboard.ts); absent in the `api` role. */
  dashboard?: Listener;
  /** The dashboard's JSON API and download in this process (dashboard-api.ts); with `dashboard` only. */
  dashboardApi?: Listener;
  /** The route pattern of a page path (page-routes.ts); without it every page is `unmatched`. */
  pages?: PageRouteOf;
  /** Monotonic milliseconds for the dashboard pools' time share (performance.now unless a test injects one). */
  now?: () => number;
  /** The dashboard pools' queue timer (setTimeout unless a test injects one). */
  setTimer?: SetTimer;
}

/** Whether the answer `res` has closed (its client went away): nothing more can be sent on it. */
const isClosed = (res: ServerResponse) => res.closed || res.destroyed;

/** Path of a request target without its query (`*` and absolute-form targets as given). */
const pathOf = (url: string) => {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
};

/** Files Next serves as they are: never counted against the anonymous dashboard bucket. */
const STATIC = /^\/(_next\/|vendor\/|favicon\.ico$|icon\.svg$|swagger-ui-init\.js$)/;

const OPENAPI_DOCUMENT = "/v1/openapi.json";

/**
 * The acceptance of an invitation: the end of a person's errand whose page has loaded, and bounded by the sign-in
 * throttle and the password work it starts, so it may always draw on the anonymous pool's reserve.
 */
const INVITATION_ACCEPTANCE = "/api/trpc/portal.acceptInvitation";

/** What every answer Next gives starts with, until proxy.ts sets a page's own policy. */
const FALLBACK_POLICY = "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** How long an answer of the database check is reused (ms), and how long the check may take. */
const DATABASE_CHECK_MS = 1000;

/** `() => whether the database answered its last check`, checking at most once per `DATABASE_CHECK_MS`. */
function databaseCheck(health: () => Promise<void>): () => Promise<boolean> {
  let last: { at: number; ok: Promise<boolean> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= DATABASE_CHECK_MS) {
      last = {
        at: now,
        ok: withTimeout(health(), DATABASE_CHECK_MS, "database").then(
          () => true,
          () => false,
        ),
      };
    }
    return last.ok;
  };
}

/** The node:http request listener of the process. */
export function createRouter(routes: Routes): Listener {
  const { role, runtime, api, ops, dashboard } = routes;
  const trustProxy = runtime.config.trustProxy;
  const databaseAnswers = databaseCheck(() => runtime.health());
  const { concurrency, queue, anonymousShare, anonymousBurst, queueTimeoutMs } =
    runtime.config.dashboardAdmission;
  const now = routes.now ?? (() => performance.now());
  const common = {
    concurrency,
    queue,
    now,
    maxWaitMs: queueTimeoutMs,
    ...(routes.setTimer ? { setTimer: routes.setTimer } : {}),
  };
  const pools = {
    // The time share only where /v1 competes for the same event loop.
    anonymous: createDashboardPool({ ...common, ...(role === "all" ? { share: anonymousShare } : {}) }),
    signedIn: createDashboardPool(common),
  };

  const https = (req: IncomingMessage) => requestIsHttps(req, runtime.config);
  const pageRoute = routes.pages ?? (() => undefined);

  /** The route labels of a request to `path` outside /v1 (request-log.ts). */
  function routesOf(path: string): readonly string[] {
    if (OPS_PATHS.has(path)) return [path];
    if (isDashboardApiPath(path)) return dashboardApiRoutes(path);
    return [pageRoute(path) ?? UNMATCHED];
  }

  /** The answer to a request whose routing threw (the limiter and the session cache never do). */
  const failed = (req: IncomingMessage, res: ServerResponse) => (error: unknown) => {
    process.stderr.write(`request failed: ${String(error)}\n`);
    if (!res.headersSent) writeErrorAnswer(res, problems.internalError(), req.headers);
  };

  /** `OPTIONS *`: the methods this server serves. */
  function serverOptions(req: IncomingMessage, res: ServerResponse) {
    const body = JSON.stringify({ allow: SERVED_METHODS });
    res
      .writeHead(200, {
        ...jsonHeaders(requestIdOf(req.headers["x-request-id"])),
        Allow: SERVED_METHODS.join(", "),
        "Content-Length": String(Buffer.byteLength(body)),
      })
      .end(body);
  }

  function toDashboard(req: IncomingMessage, res: ServerResponse, next: Listener) {
    for (const [name, value] of Object.entries(baseSecurityHeaders(https(req)))) res.setHeader(name, value);
    res.setHeader("Content-Security-Policy", FALLBACK_POLICY);
    next(req, res);
  }

  /**
   * Whether `req` comes with a session this process knows; one without is counted against its client address's
   * dashboard bucket, and when the bucket is used up, the 429 is answered (after the limiter's hold). A session
   * read valid too long ago to be trusted from memory (known.ts `recheck`) spends the budget while it is read
   * again, and is refused like an anonymous caller unless it is still live, so a cookie of an ended session
   * never buys more than the address's budget.
   * @returns `refused` when answered (or the client went away), else which pool the request belongs to, and
   *   whether it is among the first `DASHBOARD_ANONYMOUS_BURST` of its address this minute (`personal`).
   */
  async function budget(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<"refused" | { pool: keyof typeof pools; personal: boolean }> {
    stampClientIp(req, trustProxy);
    const known = runtime.sessions.isKnown(readCookie(req.headers.cookie, SESSION_COOKIE));
    if (known === true) return { pool: "signedIn", personal: false };
    const check = runtime.rateLimiter.checkAnonymous(
      trustedClientIp({ get: (name) => (req.headers[name] as string | undefined) ?? null }),
      "dashboard",
    );
    // Never rejects (it fails open); the catch only keeps a live session's unread decision from being reported.
    check.catch(() => {});
    if (known !== false && (await known)) return { pool: "signedIn", personal: false };
    const decision = await check;
    const window = decision.windows?.[0];
    if (decision.allowed)
      return {
        pool: "anonymous",
        personal: window !== undefined && window.limit - window.remaining <= anonymousBurst,
      };
    await runtime.rateLimiter.holdRefusal(decision);
    if (isClosed(res)) return "refused";
    const headers = rateLimitHeaders(decision);
    const retryAfter = Number(headers["Retry-After"] ?? 1);
    answerRefusal(req, res, runtime.config, {
      status: 429,
      retryAfter,
      message: `Too many requests without a session from this address: ${decision.reported?.limit ?? ""} per minute. Retry after ${retryAfter} s.`,
      reason: "This address has opened more pages without signing in than this site allows in a minute.",
      headers,
    });
    return "refused";
  }

  /** Answers a dashboard request its pool refused or gave up on. */
  function refused(req: IncomingMessage, res: ServerResponse, pool: keyof typeof pools, outcome: Admission) {
    if (typeof outcome !== "object") return;
    const what = `dashboard requests${pool === "anonymous" ? " without a session" : ""}`;
    answerRefusal(req, res, runtime.config, {
      ...outcome,
      message:
        outcome.status === 429
          ? `This instance is serving as many ${what} as it takes for now. Retry after ${outcome.retryAfter} s.`
          : `This instance could not give the request a place among its ${what} in time. Retry after ${outcome.retryAfter} s.`,
      reason: "The site is busy serving other visitors right now.",
    });
  }

  async function gateThenDashboard(req: IncomingMessage, res: ServerResponse, next: Listener) {
    const admission = await budget(req, res);
    if (admission === "refused" || isClosed(res)) return;
    const path = pathOf(req.url ?? "/");
    const { pool } = admission;
    const personal = admission.personal || (req.method === "POST" && path === INVITATION_ACCEPTANCE);
    // Before a place is taken: waiting for the database check is no work, and must not use up the time share.
    // A navigation inside the dashboard (Next's `rsc` request) gets the 503 too: Next then loads that address as
    // a page, which gets the styled 503 at the address the person asked for, path and query.
    if (isPageOrNavigation(req, path) && !(await databaseAnswers())) {
      if (isClosed(res)) return;
      return answerUnavailable(req, res, runtime.config, "database");
    }
    // Where a page that lost the database mid-render sent the browser: back to that page once it answers.
    if (path === UNAVAILABLE_PATH)
      return res.writeHead(307, { Location: returnAddress(req.url ?? "/") }).end();
    // A client that went away while the checks above ran takes no place (the pool sees its answer closed).
    const admitted = pools[pool].admit(res, personal);
    const outcome = admitted instanceof Promise ? await admitted : admitted;
    if (outcome !== true) return refused(req, res, pool, outcome);
    toDashboard(req, res, next);
  }

  const listener: Listener = (req, res) => {
    const target = checkTarget(req);
    if (target === "*") {
      observeRequest(runtime.logger, req, res, ["*"]);
      return serverOptions(req, res);
    }
    if (target) {
      observeRequest(runtime.logger, req, res, [UNMATCHED]);
      return writeErrorAnswer(res, target, req.headers);
    }
    const url = req.url ?? "/";
    const path = pathOf(url);
    if (isRestPath(url)) {
      // The REST app logs and counts its own requests (rest/middleware/request-context.ts).
      if (role !== "dashboard" || path === OPENAPI_DOCUMENT) return api(req, res);
      observeRequest(runtime.logger, req, res, [UNMATCHED]);
      return writeErrorAnswer(
        res,
        {
          code: "not_found",
          message: "This instance serves the dashboard; the API is served by the API instances.",
        },
        req.headers,
      );
    }
    // A path with an empty segment is no file: Next redirects it to the merged path (counted like any page).
    const isStatic = STATIC.test(path) && !path.includes("//");
    if (isStatic) observeRequest(runtime.logger, req, res, ["static"], "debug");
    else observeRequest(runtime.logger, req, res, routesOf(path));
    if (isUnservedMethod(req.method))
      return writeErrorAnswer(res, unservedMethod(req.method ?? ""), req.headers);
    if (OPS_PATHS.has(path)) {
      if (req.method === "GET" || req.method === "HEAD") return ops(req, res);
      return writeErrorAnswer(res, problems.methodNotAllowed(req.method ?? "", ["GET", "HEAD"]), req.headers);
    }
    if (!dashboard) {
      void budget(req, res).then(
        (admission) => {
          if (admission === "refused" || isClosed(res)) return;
          writeErrorAnswer(
            res,
            { code: "not_found", message: "This instance serves the API under /v1 only." },
            req.headers,
          );
        },
        failed(req, res),
      );
      return;
    }
    if (isStatic) {
      stampClientIp(req, trustProxy);
      return toDashboard(req, res, dashboard);
    }
    const next = routes.dashboardApi && isDashboardApiPath(path) ? routes.dashboardApi : dashboard;
    void gateThenDashboard(req, res, next).catch(failed(req, res));
  };
  // Each request in a span of its own while tracing is on (docs/operations.md "Tracing"); untouched otherwise.
  return runtime.config.tracing ? tracedListener(listener) : listener;
}
