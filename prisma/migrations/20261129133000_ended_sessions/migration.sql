-- CreateTable: why a session was ended on its person's behalf (a member removed), told at the next sign-in page.
CREATE TABLE "EndedSession" (
    "tokenHash" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "endedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EndedSession_pkey" PRIMARY KEY ("tokenHash")
);

-- CreateIndex
CREATE INDEX "EndedSession_expiresAt_idx" ON "EndedSession"("expiresAt");
