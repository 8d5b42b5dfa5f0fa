/**
 * `POST /api/hooks/github/secret-scanning` (docs/contract.md section 2, "Leaked keys"): GitHub's secret-scanning
 * partner reports, answered with GitHub's labels once every reported live key is revoked (core's leaks.ts).
 */
import {
  problems,
  SECRET_SCANNING_KEY_ID_HEADER,
  SECRET_SCANNING_MAX_BODY_BYTES,
  SECRET_SCANNING_SIGNATURE_HEADER,
} from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { translateError } from "@petstore/core/errors";
import { errorResponse, jsonHeaders, requestIdOf } from "./http/error-answer";
import { withBoundedBody } from "./trpc/body-limit";

/** The answer to report `req` on `rt`: 200 with the labels, or the error model's answer (401 for a bad signature). */
export async function secretScanningResponse(rt: Runtime, req: Request): Promise<Response> {
  const requestId = requestIdOf(req.headers.get("x-request-id"));
  if (req.method !== "POST") return errorResponse(problems.methodNotAllowed(req.method, ["POST"]), requestId);
  const bounded = await withBoundedBody(req, SECRET_SCANNING_MAX_BODY_BYTES);
  if (!bounded) return errorResponse(problems.payloadTooLarge(SECRET_SCANNING_MAX_BODY_BYTES), requestId);
  try {
    const labels = await rt.leakedKeys.report(new Uint8Array(await bounded.arrayBuffer()), {
      keyIdentifier: req.headers.get(SECRET_SCANNING_KEY_ID_HEADER),
      signature: req.headers.get(SECRET_SCANNING_SIGNATURE_HEADER),
    });
    return new Response(JSON.stringify(labels), { status: 200, headers: jsonHeaders(requestId) });
  } catch (error) {
    const { error: answer, kind } = translateError(error);
    if (kind !== "domain") rt.logger.error({ err: error }, "secret-scanning report failed");
    return errorResponse(answer, requestId);
  }
}
