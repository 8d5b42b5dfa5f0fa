-- The API keys list sorted by requests of the last 7 or 30 days, or of today (packages/core/src/api-keys/search.ts),
-- sums the rows of admitted requests of a window of hours: a partial index of those rows by hour, carrying what the
-- sum needs, answers it by an index-only scan instead of reading every outcome's rows of the window from the table
-- (docs/performance.md "Keys list sorted by usage"). schema.prisma cannot express a partial index.
CREATE INDEX "UsageHour_admitted_hour_idx" ON "UsageHour" ("hour", "apiKeyId") INCLUDE ("requests")
  WHERE "outcome" IN ('2xx', '4xx', '5xx');
