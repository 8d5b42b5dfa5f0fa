"use client";
/**
 * Whose webhook endpoints the webhook pages manage (docs/contract.md sections 6 and 7): the store's, with the admin's
 * procedures (`webhooks.*`, /admin/webhooks, the default), or a member's account's (`portal.webhooks.*`,
 * /portal/webhooks); both take and answer the same shapes. Also the labels and the secret those pages share.
 */
import type { WebhookEventType } from "@petstore/contracts";
import { createContext, type ReactNode, useContext } from "react";
import { NotFoundNotice, Notice } from "../components/page";
import { SecretOnce } from "../secret-once";
import { useTRPC } from "../trpc";

/** The procedures the pages call but `replayMessage`, whose portal input requires the endpoint (message-page.tsx). */
export type WebhookProcedures = Omit<ReturnType<typeof useTRPC>["webhooks"], "replayMessage">;
export type WebhookScopeName = "admin" | "portal";

const SCOPES: Record<WebhookScopeName, { base: string; notFound: ReactNode }> = {
  admin: { base: "/admin/webhooks", notFound: <NotFoundNotice /> },
  portal: {
    base: "/portal/webhooks",
    notFound: (
      <Notice title="Endpoint not found" back={["/portal/webhooks", "← Your webhook endpoints"]}>
        Your account has no webhook endpoint at this address. It may have been deleted.
      </Notice>
    ),
  },
};

const ScopeContext = createContext<WebhookScopeName>("admin");

/** Makes the webhook pages below act on `scope`'s endpoints. */
export function WebhookScope({ scope, children }: { scope: WebhookScopeName; children: ReactNode }) {
  return <ScopeContext value={scope}>{children}</ScopeContext>;
}

/** The webhook procedures of the current scope, what a change invalidates, and where its pages are. */
export function useWebhookApi() {
  const trpc = useTRPC();
  const scope = useContext(ScopeContext);
  const procedures: WebhookProcedures = scope === "portal" ? trpc.portal.webhooks : trpc.webhooks;
  const { base, notFound } = SCOPES[scope];
  return {
    scope,
    notFound,
    procedures,
    invalidate: [procedures.pathKey(), trpc.audit.pathKey()],
    listHref: base,
    endpointHref: (id: string) => `${base}/${id}`,
    messageHref: (id: string) => `${base}/messages/${id}`,
  };
}

/** What each event type means, for the checkboxes of the endpoint form. */
export const EVENT_TYPE_LABELS: Record<WebhookEventType, string> = {
  "pet.created": "An animal is added",
  "pet.updated": "An animal is changed (name, category or status)",
  "pet.deleted": "An animal is deleted",
  "order.placed": "An API client orders an animal",
  "order.completed": "An order is completed (the animal is sold)",
  "order.cancelled": "An order is cancelled",
  "order.expired": "An order's hold lapses",
  "category.created": "A category is added",
  "category.updated": "A category is renamed",
  "category.deleted": "A category is deleted",
  "usage.threshold": "An account's requests reach an alert threshold of its day or month",
  "key.leaked": "An API key is reported leaked (GitHub secret scanning or an admin)",
};

/** Colour of a delivery's state badge. */
export const DELIVERY_STATE_COLORS = { pending: "yellow", succeeded: "teal", failed: "red" } as const;

/** `204 in 35 ms`, `No answer: connection refused`. */
export function attemptSummary(a: {
  status: number | null;
  durationMs: number | null;
  error: string | null;
}) {
  if (a.status === null) return `No answer: ${a.error ?? "unknown error"}`;
  return `${a.status} in ${a.durationMs ?? 0} ms`;
}

/** A new signing secret, once; `rotated`: the old one signs too for 24 hours. */
export function WebhookSecretOnce({
  secret,
  rotated,
  onDone,
}: {
  secret: string;
  rotated?: boolean;
  onDone(): void;
}) {
  return (
    <SecretOnce
      title="Copy this signing secret now"
      label="Signing secret"
      value={secret}
      noun="secret"
      testId="webhook-secret"
      onDone={onDone}
    >
      This is the only time the secret is shown. The receiver verifies every delivery with it (Standard
      Webhooks, e.g. the <code>standardwebhooks</code> package).
      {rotated
        ? " For the next 24 hours each delivery is signed with the old secret as well, so the receiver can switch over."
        : ""}
    </SecretOnce>
  );
}
