"use client";
/**
 * The portal's webhook pages: the dashboard's webhook list, endpoint and message pages acting on the member's
 * account through the portal's procedures (docs/contract.md section 7, "Webhooks in the portal").
 */
import { Anchor, Stack, Text, Title } from "@mantine/core";
import Link from "next/link";
import { EndpointPage } from "@/admin/webhooks/endpoint-page";
import { MessagePage } from "@/admin/webhooks/message-page";
import { WebhookScope } from "@/admin/webhooks/webhook-scope";
import { WebhooksPage } from "@/admin/webhooks/webhooks-page";

function EndpointNotFound() {
  return (
    <Stack gap="sm" maw={520}>
      <Title order={1} size="h2">
        Endpoint not found
      </Title>
      <Text size="sm">Your account has no webhook endpoint at this address. It may have been deleted.</Text>
      <Anchor component={Link} href="/portal/webhooks" size="sm">
        ← Your webhook endpoints
      </Anchor>
    </Stack>
  );
}

/** The account's webhook endpoints. */
export function PortalWebhooksPage() {
  return (
    <WebhookScope scope="portal">
      <WebhooksPage />
    </WebhookScope>
  );
}

/** One endpoint of the account with its delivery log. */
export function PortalEndpointPage({ id }: { id: string }) {
  return (
    <WebhookScope scope="portal" notFound={<EndpointNotFound />}>
      <EndpointPage id={id} />
    </WebhookScope>
  );
}

/** One message with its deliveries to the account's endpoints. */
export function PortalMessagePage({ id }: { id: string }) {
  return (
    <WebhookScope scope="portal">
      <MessagePage id={id} />
    </WebhookScope>
  );
}
