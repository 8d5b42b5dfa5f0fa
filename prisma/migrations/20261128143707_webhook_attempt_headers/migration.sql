-- The request headers of each webhook attempt, for the delivery log (docs/contract.md section 6); existing attempts keep none.

-- AlterTable
ALTER TABLE "WebhookAttempt" ADD COLUMN     "requestHeaders" JSONB;
