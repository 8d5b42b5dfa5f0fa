/**
 * The request log's batch between two flushes (usage/request-log.ts): each account logs its requests one by one
 * within its own budget (refused ones within a smaller one) and counts the rest in aggregate rows, so one
 * account's flood costs another nothing; paths are stored redacted; rows a failed write hands back go before the
 * newer ones, within the same budgets.
 */
import { describe, expect, it } from "vitest";
import {
  REQUEST_LOG_ACCOUNT_ENTRIES,
  REQUEST_LOG_ACCOUNT_REFUSALS,
  RequestLogBatch,
  type RequestLogColumns,
  type RequestLogEntry,
} from "../src/usage/request-log.ts";

const entryOf = (requestId: string, over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
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
  requests: 1,
  firstAt: null,
  ...over,
});

/** Pushes the entry of `requestId` as the recorder does: the request's fields, and the log's. */
const push = (batch: RequestLogBatch, requestId: string, over: Partial<RequestLogEntry> = {}) => {
  const e = entryOf(requestId, over);
  batch.push(e.apiKeyId, e, e.refusedBy, e);
};

/** The rows of taken columns as entries. */
const rows = (c: RequestLogColumns): RequestLogEntry[] =>
  c.requestId.map(
    (_, i) =>
      Object.fromEntries(Object.keys(c).map((f) => [f, (c as Record<string, unknown[]>)[f]?.[i]])) as never,
  );

describe("request log batch", () => {
  it("keeps every request of account B while account A floods far past its budget", () => {
    const batch = new RequestLogBatch();
    const flood = REQUEST_LOG_ACCOUNT_ENTRIES * 5;
    for (let i = 0; i < flood; i++) {
      push(batch, `a${i}`, { accountId: "A", apiKeyId: "ka", at: 1_000 + i });
      if (i % 5_000 === 0) push(batch, `b${i}`, { accountId: "B", apiKeyId: "kb", at: 1_000 + i });
    }
    const taken = rows(batch.take());
    const b = taken.filter((r) => r.accountId === "B");
    expect(b.map((r) => r.requestId)).toEqual(
      Array.from({ length: flood / 5_000 }, (_, i) => `b${i * 5_000}`),
    );
    const a = taken.filter((r) => r.accountId === "A");
    expect(a.filter((r) => r.requests === 1)).toHaveLength(REQUEST_LOG_ACCOUNT_ENTRIES);
    const [aggregate, ...more] = a.filter((r) => r.firstAt !== null);
    expect(more).toEqual([]);
    expect(aggregate).toMatchObject({
      requests: flood - REQUEST_LOG_ACCOUNT_ENTRIES,
      firstAt: 1_000 + REQUEST_LOG_ACCOUNT_ENTRIES,
      at: 1_000 + flood - 1,
      method: "",
      path: "",
      requestId: "",
      status: 200,
    });
    expect(batch.aggregated).toBe(flood - REQUEST_LOG_ACCOUNT_ENTRIES);
    expect(batch.size).toBe(0);
  });

  it("logs a key's first refusals one by one and counts the rest by status and refusal", () => {
    const batch = new RequestLogBatch();
    const refused = {
      status: 429,
      errorCode: "rate_limited",
      refusedBy: "minute" as const,
      minuteRemaining: 0,
    };
    for (let i = 0; i < 1_000; i++) push(batch, `r${i}`, { ...refused, at: 10 + i, durationMs: 2 });
    for (let i = 0; i < 10; i++)
      push(batch, `ban${i}`, { ...refused, refusedBy: "ban", errorCode: "key_banned" });
    push(batch, "ok", { at: 5_000 });
    const taken = rows(batch.take());
    expect(taken.filter((r) => r.requests === 1 && r.firstAt === null).map((r) => r.requestId)).toEqual([
      ...Array.from({ length: REQUEST_LOG_ACCOUNT_REFUSALS }, (_, i) => `r${i}`),
      "ok",
    ]);
    const aggregates = taken.filter((r) => r.firstAt !== null);
    expect(aggregates).toEqual([
      expect.objectContaining({
        status: 429,
        refusedBy: "minute",
        requests: 1_000 - REQUEST_LOG_ACCOUNT_REFUSALS,
        firstAt: 10 + REQUEST_LOG_ACCOUNT_REFUSALS,
        at: 1_009,
        durationMs: 2,
      }),
      expect.objectContaining({ status: 429, refusedBy: "ban", errorCode: "key_banned", requests: 10 }),
    ]);
  });

  it("stores paths redacted", () => {
    const batch = new RequestLogBatch();
    push(batch, "s", { path: "/v1/pets?token=s3cr3t&limit=2" });
    expect(batch.take().path).toEqual(["/v1/pets?token=[redacted]&limit=2"]);
  });

  it("puts a failed write's rows back before the newer ones, within each account's budget", () => {
    const batch = new RequestLogBatch();
    push(batch, "old-1");
    push(batch, "old-2");
    for (let i = 0; i < REQUEST_LOG_ACCOUNT_ENTRIES; i++) push(batch, `flood-${i}`, { accountId: "A" });
    const failed = batch.take();
    push(batch, "new-1");
    push(batch, "new-flood", { accountId: "A", at: 7 });
    batch.putBack(failed);
    const taken = rows(batch.take());
    expect(taken.filter((r) => r.accountId === "a").map((r) => r.requestId)).toEqual([
      "old-1",
      "old-2",
      "new-1",
    ]);
    expect(taken.filter((r) => r.accountId === "A" && r.requests === 1 && r.firstAt === null)).toHaveLength(
      REQUEST_LOG_ACCOUNT_ENTRIES,
    );
    expect(taken.filter((r) => r.firstAt !== null)).toEqual([
      expect.objectContaining({ accountId: "A", requests: 1, firstAt: 7, at: 7 }),
    ]);
  });
});
