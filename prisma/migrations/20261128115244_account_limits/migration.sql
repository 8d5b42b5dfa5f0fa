-- An account's own limits, shared by its keys (docs/contract.md section 7; required on Enterprise, which has no plan-wide limits).

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "perDay" INTEGER,
ADD COLUMN     "perMinute" INTEGER;

-- The per-minute limit may not exceed the per-day one (docs/contract.md section 2), as for a key's own limits.
ALTER TABLE "Account" ADD CONSTRAINT "Account_limits_order"
  CHECK ("perMinute" IS NULL OR "perDay" IS NULL OR "perMinute" <= "perDay");
