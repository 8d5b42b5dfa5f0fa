-- Leaked keys (docs/contract.md section 2, "Leaked keys"): when a key was reported leaked, by whom, and where.
ALTER TABLE "ApiKey" ADD COLUMN "leakedAt" TIMESTAMP(3);
ALTER TABLE "ApiKey" ADD COLUMN "leakSource" TEXT;
ALTER TABLE "ApiKey" ADD COLUMN "leakUrl" TEXT;
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_leakSource_check"
  CHECK ("leakSource" IS NULL OR "leakSource" IN ('github', 'dashboard'));
