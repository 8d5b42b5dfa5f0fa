-- A test message (webhook.test, or an example of an event type) goes to the one endpoint it was sent to, never to
-- other subscribers of its type, also when they replay a range (packages/core/src/webhooks/endpoints.ts).
ALTER TABLE "WebhookEvent" ADD COLUMN "testEndpointId" UUID;

-- Test messages written before the column name their endpoint in their data.
UPDATE "WebhookEvent" SET "testEndpointId" = ("data"::jsonb ->> 'endpointId')::uuid WHERE "type" = 'webhook.test';
