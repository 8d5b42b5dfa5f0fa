-- Webhooks (docs/contract.md section 6): endpoints, the outbox of events written with the change that caused
-- them, the delivery queue (claimed with FOR UPDATE SKIP LOCKED) and the log of attempts.

-- CreateEnum
CREATE TYPE "WebhookDeliveryState" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "eventTypes" TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabledReason" TEXT,
    "disabledAt" TIMESTAMPTZ(3),
    "secret" TEXT NOT NULL,
    "previousSecret" TEXT,
    "previousSecretExpiresAt" TIMESTAMPTZ(3),
    "failingSince" TIMESTAMPTZ(3),
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookEvent" (
    "id" TEXT NOT NULL DEFAULT (('msg_'::text || lpad(to_hex(((EXTRACT(epoch FROM clock_timestamp()) * (1000)::numeric))::bigint), 12, '0'::text)) || "left"(replace((gen_random_uuid())::text, '-'::text, ''::text), 20)),
    "type" TEXT NOT NULL,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" TEXT NOT NULL,

    CONSTRAINT "WebhookEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "eventId" TEXT NOT NULL,
    "endpointId" UUID NOT NULL,
    "state" "WebhookDeliveryState" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "round" INTEGER NOT NULL DEFAULT 0,
    "queuedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "nextAttemptAt" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    "claim" UUID,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("eventId","endpointId")
);

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" BIGSERIAL NOT NULL,
    "eventId" TEXT NOT NULL,
    "endpointId" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "succeeded" BOOLEAN NOT NULL,
    "status" INTEGER,
    "error" TEXT,
    "responseExcerpt" TEXT,

    CONSTRAINT "WebhookAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_state_nextAttemptAt_idx" ON "WebhookDelivery"("endpointId", "state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookAttempt_endpointId_startedAt_idx" ON "WebhookAttempt"("endpointId", "startedAt");

-- CreateIndex
CREATE INDEX "WebhookAttempt_eventId_endpointId_idx" ON "WebhookAttempt"("eventId", "endpointId");

-- AddForeignKey
ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "WebhookAttempt_eventId_endpointId_fkey" FOREIGN KEY ("eventId", "endpointId") REFERENCES "WebhookDelivery"("eventId", "endpointId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "WebhookAttempt_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;
