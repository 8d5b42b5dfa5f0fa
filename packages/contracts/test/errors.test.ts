import { describe, expect, it } from "vitest";
import { AppError, errorBody, problems } from "../src/index.ts";

describe("errors", () => {
  it("renders an AppError and a standard problem as the same Error body", () => {
    const thrown = new AppError("method_not_allowed", "PUT is not allowed here; use GET.", undefined, {
      Allow: "GET",
    });
    const answered = problems.methodNotAllowed("PUT", ["GET"]);
    expect(errorBody(thrown)).toEqual(errorBody(answered));
    expect(answered.headers).toEqual(thrown.headers);
    expect(errorBody(problems.payloadTooLarge())).toEqual({
      code: "payload_too_large",
      message: "The request body is larger than 16 KiB.",
      status: 413,
    });
  });

  it("keeps the refusals of the request path plain values: no Error, no stack trace to capture", () => {
    for (const problem of [
      problems.unauthorized(true),
      problems.notFound("/v1/x"),
      problems.requestTimeout(),
    ]) {
      expect(problem).not.toBeInstanceOf(Error);
      expect("stack" in problem).toBe(false);
    }
    // A thrown AppError keeps its stack for the logs.
    expect(new AppError("service_unavailable", "down").stack).toMatch(/\n\s+at /);
  });
});
