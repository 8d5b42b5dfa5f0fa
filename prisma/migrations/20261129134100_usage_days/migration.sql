-- UsageDay: each key's requests per UTC day by what the API key list sorts on (admitted, getPet among them,
-- refused with 429), kept by the statements that write UsageHour, so that the list sorted by requests or getPet
-- calls of 7 or 30 days sums a row per key and day (docs/performance.md "Keys list sorted by usage").

-- CreateTable
CREATE TABLE "UsageDay" (
    "apiKeyId" UUID NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
    "admitted" INTEGER NOT NULL DEFAULT 0,
    "getPet" INTEGER NOT NULL DEFAULT 0,
    "refused" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "UsageDay_pkey" PRIMARY KEY ("apiKeyId","day")
);

-- CreateIndex
CREATE INDEX "UsageDay_day_idx" ON "UsageDay"("day");

-- The days of the hours already recorded.
INSERT INTO "UsageDay" ("apiKeyId", "day", "admitted", "getPet", "refused")
SELECT "apiKeyId", date_trunc('day', "hour"),
       coalesce(sum("requests") FILTER (WHERE "outcome" IN ('2xx', '4xx', '5xx')), 0)::int,
       coalesce(sum("requests") FILTER (WHERE "outcome" IN ('2xx', '4xx', '5xx') AND "operation" = 'getPet'), 0)::int,
       coalesce(sum("requests") FILTER (WHERE "outcome" IN ('rate_limited', 'rate_limited_minute', 'rate_limited_day', 'rate_limited_month', 'key_banned')), 0)::int
FROM "UsageHour"
GROUP BY "apiKeyId", date_trunc('day', "hour");
