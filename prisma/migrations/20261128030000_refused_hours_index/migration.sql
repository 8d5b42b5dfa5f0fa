-- The API keys list sorted by 429s of the last 7 days (packages/core/src/api-keys/search.ts) sums only the rows of
-- refused requests of a window of hours: a partial index of those rows by hour, carrying what the sum needs, answers
-- it by an index-only scan instead of reading every outcome's rows of the window from the table
-- (docs/performance.md "Console interactions"). schema.prisma cannot express a partial index.
CREATE INDEX "UsageHour_refused_hour_idx" ON "UsageHour" ("hour", "apiKeyId") INCLUDE ("requests")
  WHERE "outcome" IN ('rate_limited', 'rate_limited_minute', 'rate_limited_day', 'key_banned');
