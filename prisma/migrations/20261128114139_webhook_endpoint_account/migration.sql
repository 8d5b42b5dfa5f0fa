-- Webhook endpoints of consumer accounts, managed by their members in the portal (docs/contract.md section 7).

-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "accountId" UUID;

-- CreateIndex
CREATE INDEX "WebhookEndpoint_accountId_idx" ON "WebhookEndpoint"("accountId");
