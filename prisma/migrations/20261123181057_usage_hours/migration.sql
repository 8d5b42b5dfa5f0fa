-- Request analytics per key, UTC hour, operation and outcome (docs/contract.md section 4) replace the daily
-- usage rows. Existing daily rows are carried over at their day's first hour: calls of the deprecated getPet as
-- getPet/2xx, the other admitted requests as other/2xx, 429s as other/rate_limited (no latency recorded).
-- Bans per day are read from the audit log (apiKey.ban entries) from now on.

-- CreateTable
CREATE TABLE "UsageHour" (
    "apiKeyId" UUID NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "operation" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "latency" INTEGER[],

    CONSTRAINT "UsageHour_pkey" PRIMARY KEY ("apiKeyId","hour","operation","outcome")
);

-- CreateIndex
CREATE INDEX "UsageHour_hour_idx" ON "UsageHour"("hour");

-- Carry the daily rows over
INSERT INTO "UsageHour" ("apiKeyId", "hour", "operation", "outcome", "requests", "latency")
SELECT "apiKeyId", "day"::timestamp, 'getPet', '2xx', "deprecatedGet", array_fill(0, ARRAY[14])
FROM "ApiKeyUsage" WHERE "deprecatedGet" > 0
UNION ALL
SELECT "apiKeyId", "day"::timestamp, 'other', '2xx', "requests" - "deprecatedGet", array_fill(0, ARRAY[14])
FROM "ApiKeyUsage" WHERE "requests" > "deprecatedGet"
UNION ALL
SELECT "apiKeyId", "day"::timestamp, 'other', 'rate_limited', "rateLimited", array_fill(0, ARRAY[14])
FROM "ApiKeyUsage" WHERE "rateLimited" > 0;

-- DropTable
DROP TABLE "ApiKeyUsage";
