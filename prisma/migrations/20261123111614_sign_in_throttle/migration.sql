-- SignInFailure rows were transient throttle state (only the last 15 minutes mattered): not carried over.
-- DropTable
DROP TABLE "SignInFailure";

-- CreateTable
CREATE TABLE "SignInThrottle" (
    "bucket" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "lastAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "blockedUntil" TIMESTAMP(3),
    "auditedBlock" TIMESTAMP(3),

    CONSTRAINT "SignInThrottle_pkey" PRIMARY KEY ("bucket")
);

-- CreateIndex
CREATE INDEX "SignInThrottle_lastAttemptAt_idx" ON "SignInThrottle"("lastAttemptAt");
