"use client";
/**
 * Whose webhook endpoints the webhook components manage: the store's with the admin's procedures
 * (`webhooks.*`, pages under /admin/webhooks, the default), or a portal member's account with the portal's
 * (`portal.webhooks.*`, pages under /portal/webhooks). Both procedure sets take and answer the same shapes.
 */
import { createContext, type ReactNode, useContext } from "react";
import { useTRPC } from "../trpc";

type Trpc = ReturnType<typeof useTRPC>;
/**
 * The procedures the webhook components call, but `replayMessage`, whose input differs (the portal's requires
 * the endpoint): message-page.tsx picks it by `scope`.
 */
export type WebhookProcedures = Omit<Trpc["webhooks"], "replayMessage">;
export type WebhookScopeName = "admin" | "portal";

const BASES: Record<WebhookScopeName, string> = { admin: "/admin/webhooks", portal: "/portal/webhooks" };

const ScopeContext = createContext<{ scope: WebhookScopeName; notFound?: ReactNode }>({ scope: "admin" });

/** Makes the webhook components below act on `scope`'s endpoints; `notFound` replaces a missing endpoint's page. */
export function WebhookScope({
  scope,
  notFound,
  children,
}: {
  scope: WebhookScopeName;
  notFound?: ReactNode;
  children: ReactNode;
}) {
  return <ScopeContext value={{ scope, notFound }}>{children}</ScopeContext>;
}

/** The webhook procedures of the current scope, what a change invalidates, and where its pages are. */
export function useWebhookApi() {
  const trpc = useTRPC();
  const { scope, notFound } = useContext(ScopeContext);
  const procedures: WebhookProcedures = scope === "portal" ? trpc.portal.webhooks : trpc.webhooks;
  const base = BASES[scope];
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
