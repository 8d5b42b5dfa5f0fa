-- The request log of consumer accounts (docs/contract.md section 7; packages/core/src/usage/request-log.ts).

-- CreateTable
CREATE TABLE "RequestLogEntry" (
    "id" BIGSERIAL NOT NULL,
    "accountId" UUID NOT NULL,
    "apiKeyId" UUID NOT NULL,
    "keyPrefix" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "errorCode" TEXT,
    "durationMs" REAL NOT NULL,
    "requestId" TEXT NOT NULL,
    "minuteRemaining" INTEGER,
    "dayRemaining" INTEGER,
    "refusedBy" TEXT,

    CONSTRAINT "RequestLogEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RequestLogEntry_accountId_at_id_idx" ON "RequestLogEntry"("accountId", "at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "RequestLogEntry_accountId_requestId_idx" ON "RequestLogEntry"("accountId", "requestId");
