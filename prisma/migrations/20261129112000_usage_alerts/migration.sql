-- Usage alerts (docs/contract.md section 7): an account's thresholds, and one row per alert sent, whose primary
-- key makes an alert go out once across instances.

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "alertThresholds" INTEGER[] DEFAULT ARRAY[80, 100]::INTEGER[];

-- CreateTable
CREATE TABLE "UsageAlert" (
    "accountId" UUID NOT NULL,
    "window" TEXT NOT NULL,
    "windowStart" TIMESTAMPTZ(3) NOT NULL,
    "threshold" INTEGER NOT NULL,
    "limit" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,
    "sentAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageAlert_pkey" PRIMARY KEY ("accountId","window","windowStart","threshold")
);

-- AddForeignKey
ALTER TABLE "UsageAlert" ADD CONSTRAINT "UsageAlert_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
