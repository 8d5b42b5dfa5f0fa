/**
 * The request log's batch between two flushes (usage/request-log.ts): at most REQUEST_LOG_BATCH_LIMIT entries, the
 * ones beyond it dropped and counted; entries a failed write hands back go before the newer ones, as far as the
 * limit allows.
 */
import { describe, expect, it } from "vitest";
import { REQUEST_LOG_BATCH_LIMIT, RequestLogBatch, type RequestLogEntry } from "../src/usage/request-log.ts";

const entryOf = (requestId: string): RequestLogEntry => ({
  accountId: "a",
  apiKeyId: "k",
  keyPrefix: "pet_test_abc",
  at: 0,
  method: "GET",
  path: "/v1/pets",
  operation: "listPets",
  status: 200,
  errorCode: null,
  durationMs: 1,
  requestId,
  minuteRemaining: 1,
  dayRemaining: 2,
  refusedBy: null,
});

/** Pushes the entry of `requestId` as the recorder does: the request's fields, and the log's. */
const push = (batch: RequestLogBatch, requestId: string) => {
  const e = entryOf(requestId);
  batch.push(e.apiKeyId, e, e.refusedBy, e);
};

describe("request log batch", () => {
  it("holds at most the limit and counts what it drops", () => {
    const batch = new RequestLogBatch();
    for (let i = 0; i < REQUEST_LOG_BATCH_LIMIT + 3; i++) push(batch, `r${i}`);
    expect(batch.size).toBe(REQUEST_LOG_BATCH_LIMIT);
    expect(batch.dropped).toBe(3);
    const taken = batch.take();
    expect(taken.requestId.at(-1)).toBe(`r${REQUEST_LOG_BATCH_LIMIT - 1}`);
    expect(batch.size).toBe(0);
  });

  it("puts a failed write's entries back before the newer ones", () => {
    const batch = new RequestLogBatch();
    push(batch, "old-1");
    push(batch, "old-2");
    const failed = batch.take();
    push(batch, "new-1");
    batch.putBack(failed);
    expect(batch.take()).toMatchObject({ requestId: ["old-1", "old-2", "new-1"], status: [200, 200, 200] });
  });
});
