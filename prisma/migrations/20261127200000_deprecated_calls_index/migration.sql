-- The keys that still call the deprecated getPet (docs/contract.md section 4 "API keys"; summed by
-- packages/core/src/usage/deprecated-calls.ts): the view reads only getPet rows of a window of hours, so a partial
-- index of those rows by hour, carrying what the sum needs, answers it by an index-only scan instead of reading
-- every operation's rows of the window from the table (docs/performance.md "Deprecated getPet callers").
-- schema.prisma cannot express a partial index.
CREATE INDEX "UsageHour_getPet_hour_idx" ON "UsageHour" ("hour", "apiKeyId") INCLUDE ("outcome", "requests")
  WHERE "operation" = 'getPet';
