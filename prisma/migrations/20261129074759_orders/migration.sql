-- The store section (docs/contract.md section 1, "The store section"): orders holding animals, the inventory's
-- counts by status, the orders scopes, and order events addressed to one account's endpoints.

-- CreateEnum
CREATE TYPE "OrderStatus" AS ENUM ('placed', 'completed', 'cancelled', 'expired');

-- AlterTable
ALTER TABLE "ApiKey" ALTER COLUMN "scopes" SET DEFAULT ARRAY['pets:read', 'pets:write', 'orders:read', 'orders:write']::TEXT[];

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "accountId" UUID;

-- CreateTable
CREATE TABLE "PetStatusCount" (
    "status" TEXT NOT NULL,
    "n" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "Order" (
    "id" BIGSERIAL NOT NULL,
    "petId" BIGINT NOT NULL,
    "accountId" UUID,
    "apiKeyId" UUID NOT NULL,
    "status" "OrderStatus" NOT NULL DEFAULT 'placed',
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "holdUntil" TIMESTAMPTZ(3) NOT NULL,
    "closedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Order_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Order_accountId_id_idx" ON "Order"("accountId", "id" DESC);

-- CreateIndex
CREATE INDEX "Order_petId_id_idx" ON "Order"("petId", "id" DESC);

-- CreateIndex
CREATE INDEX "Order_createdAt_idx" ON "Order"("createdAt");

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- One placed order per animal: of concurrent orders for one animal, on any number of instances, the database
-- lets one be placed (docs/contract.md section 1, "POST /v1/store/orders").
CREATE UNIQUE INDEX "Order_petId_placed_key" ON "Order" ("petId") WHERE "status" = 'placed';

-- The sweep of lapsed holds reads the placed orders by holdUntil (packages/core/src/orders/sweep.ts).
CREATE INDEX "Order_holdUntil_placed_idx" ON "Order" ("holdUntil") WHERE "status" = 'placed';

-- The orders of a key outside any account, newest first (listOrders of such a key).
CREATE INDEX "Order_apiKeyId_id_idx" ON "Order" ("apiKeyId", "id" DESC) WHERE "accountId" IS NULL;

-- Scopes (docs/contract.md section 2, "Scopes"): the orders scopes are known, and every key that held everything
-- there was (both pets scopes) gets both orders scopes; a key narrowed to one pets scope keeps exactly that.
ALTER TABLE "ApiKey" DROP CONSTRAINT "ApiKey_scopes_check";
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_scopes_check" CHECK (
  "scopes" IS NOT NULL
  AND cardinality("scopes") >= 1
  AND "scopes" <@ ARRAY['pets:read', 'pets:write', 'orders:read', 'orders:write']::TEXT[]
);
UPDATE "ApiKey" SET "scopes" = "scopes" || ARRAY['orders:read', 'orders:write']::TEXT[]
WHERE "scopes" @> ARRAY['pets:read', 'pets:write']::TEXT[] AND NOT "scopes" && ARRAY['orders:read', 'orders:write']::TEXT[];

-- The usage rows of GET /v1/store/orders, answered 501 until now, are listOrders' (docs/contract.md section 4).
UPDATE "UsageHour" SET "operation" = 'listOrders' WHERE "operation" = 'store.orders';
UPDATE "UsageHourTotal" SET "operation" = 'listOrders' WHERE "operation" = 'store.orders';
UPDATE "RequestLogEntry" SET "operation" = 'listOrders' WHERE "operation" = 'store.orders';

-- The inventory (getInventory): statement-level triggers append, per statement that adds, changes or removes
-- animals, one row per status whose count it changed, from the statement's transition tables. Appending never
-- waits on another writer (a single counter row would make every createPet wait for the previous one's commit);
-- the sweep folds the rows every second (packages/core/src/pets/inventory.ts). Writers wait for the first count.
LOCK TABLE "Pet" IN SHARE MODE;
INSERT INTO "PetStatusCount" ("status", "n")
SELECT coalesce("status"::text, 'unset'), count(*) FROM "Pet" GROUP BY 1;

CREATE FUNCTION "pet_status_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "PetStatusCount" ("status", "n")
  SELECT coalesce("status"::text, 'unset'), count(*) FROM "added" GROUP BY 1;
  RETURN NULL;
END $$;

CREATE FUNCTION "pet_status_count_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "PetStatusCount" ("status", "n")
  SELECT "s", sum("d") FROM (
    SELECT coalesce("status"::text, 'unset') AS "s", 1 AS "d" FROM "added"
    UNION ALL
    SELECT coalesce("status"::text, 'unset'), -1 FROM "removed"
  ) AS t
  GROUP BY "s" HAVING sum("d") <> 0;
  RETURN NULL;
END $$;

CREATE FUNCTION "pet_status_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "PetStatusCount" ("status", "n")
  SELECT coalesce("status"::text, 'unset'), -count(*) FROM "removed" GROUP BY 1;
  RETURN NULL;
END $$;

CREATE FUNCTION "pet_status_count_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "PetStatusCount";
  RETURN NULL;
END $$;

CREATE TRIGGER "Pet_status_count_insert" AFTER INSERT ON "Pet"
  REFERENCING NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "pet_status_count_inserted"();
CREATE TRIGGER "Pet_status_count_update" AFTER UPDATE ON "Pet"
  REFERENCING OLD TABLE AS "removed" NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "pet_status_count_updated"();
CREATE TRIGGER "Pet_status_count_delete" AFTER DELETE ON "Pet"
  REFERENCING OLD TABLE AS "removed" FOR EACH STATEMENT EXECUTE FUNCTION "pet_status_count_deleted"();
CREATE TRIGGER "Pet_status_count_truncate" AFTER TRUNCATE ON "Pet"
  FOR EACH STATEMENT EXECUTE FUNCTION "pet_status_count_truncated"();
