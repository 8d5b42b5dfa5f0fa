-- AlterTable
ALTER TABLE "RequestLogEntry" ADD COLUMN     "firstAt" TIMESTAMPTZ(3),
ADD COLUMN     "requests" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "RequestLogTally" (
    "accountId" UUID NOT NULL,
    "rows" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "RequestLogTally_pkey" PRIMARY KEY ("accountId")
);

-- Each account's rows as they are now: from here on every flush and purge keeps the tally.
INSERT INTO "RequestLogTally" ("accountId", "rows")
SELECT "accountId", count(*)::int FROM "RequestLogEntry" GROUP BY "accountId";
