import { describe, expect, it } from "vitest";
import { AppError } from "../src/index.ts";

describe("AppError", () => {
  it("builds a client error (4xx) without stack frames, and a server error (5xx) with them for the logs", () => {
    const limitBefore = Error.stackTraceLimit;
    const clientError = new AppError("unauthorized", "An API key is required.");
    const serverError = new AppError("service_unavailable", "The database is unavailable.");
    expect(clientError.status).toBe(401);
    expect(clientError.stack).not.toMatch(/\n\s+at /);
    expect(serverError.stack).toMatch(/\n\s+at /);
    // The process-wide limit is left as it was.
    expect(Error.stackTraceLimit).toBe(limitBefore);
  });
});
