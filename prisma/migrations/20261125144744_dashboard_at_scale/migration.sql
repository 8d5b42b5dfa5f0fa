-- The dashboard at scale (docs/architecture.md, "Where dashboard figures are computed"): indexes for the
-- animals table's sort by name and its name search, for the audit log's filters by actor and by action, and
-- UsageHourTotal, the whole API's hourly figures, kept beside the per-key rows.

-- DropIndex
DROP INDEX "AuditLog_actor_idx";

-- DropIndex
DROP INDEX "Pet_categoryId_idx";

-- CreateTable
CREATE TABLE "UsageHourTotal" (
    "hour" TIMESTAMP(3) NOT NULL,
    "operation" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "latency" INTEGER[],

    CONSTRAINT "UsageHourTotal_pkey" PRIMARY KEY ("hour","operation","outcome")
);

-- CreateIndex
CREATE INDEX "AuditLog_actor_id_idx" ON "AuditLog"("actor", "id");

-- CreateIndex
CREATE INDEX "AuditLog_action_id_idx" ON "AuditLog"("action", "id");

-- CreateIndex
CREATE INDEX "Pet_categoryId_id_idx" ON "Pet"("categoryId", "id");

-- CreateIndex
CREATE INDEX "Pet_name_id_idx" ON "Pet"("name", "id");

-- The whole API's figures of the hours already recorded.
INSERT INTO "UsageHourTotal" ("hour", "operation", "outcome", "requests", "latency")
SELECT "hour", "operation", "outcome", sum("requests")::int, ARRAY[coalesce(sum("latency"[1]), 0)::int, coalesce(sum("latency"[2]), 0)::int, coalesce(sum("latency"[3]), 0)::int, coalesce(sum("latency"[4]), 0)::int, coalesce(sum("latency"[5]), 0)::int, coalesce(sum("latency"[6]), 0)::int, coalesce(sum("latency"[7]), 0)::int, coalesce(sum("latency"[8]), 0)::int, coalesce(sum("latency"[9]), 0)::int, coalesce(sum("latency"[10]), 0)::int, coalesce(sum("latency"[11]), 0)::int, coalesce(sum("latency"[12]), 0)::int, coalesce(sum("latency"[13]), 0)::int, coalesce(sum("latency"[14]), 0)::int]
FROM "UsageHour"
GROUP BY "hour", "operation", "outcome";

-- The audit log's "Who" list reads the users table for `user:` actors and this index for the others (system,
-- cli:..., anonymous): one index probe per distinct actor, whatever the collation. schema.prisma cannot express
-- a partial index.
CREATE INDEX "AuditLog_actor_not_user_idx" ON "AuditLog" ("actor") WHERE "actor" NOT LIKE 'user:%';

-- Name searches (ILIKE '%text%') use a trigram index where the server offers pg_trgm (PostgreSQL's contrib
-- package); where it does not (the embedded PGlite, a server without contrib) or the migrating role may not
-- create the extension, searches scan the table instead, which the capped count keeps bounded.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pg_trgm is available but this role may not create it: name searches scan the Pet table';
    END;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX "Pet_name_trgm_idx" ON "Pet" USING gin ("name" gin_trgm_ops);
  END IF;
END $$;
