"use client";
/**
 * Client side of the dashboard's tRPC API: typed hooks (`useTRPC`) over TanStack Query, one QueryClient per
 * browser tab. When any call answers UNAUTHORIZED (session expired or ended elsewhere) the tab goes back
 * to the sign-in page (the admin's, or the one `signInPath` names: the developer portal's).
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { type ReactNode, useState } from "react";
import { TRPC_MAX_BATCH_SIZE } from "@/server/trpc/limits";
import type { AppRouter } from "@/server/trpc/router";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export type ClientError = TRPCClientError<AppRouter>;

/** True when `error` is a tRPC error with HTTP-like `code`. */
export function hasCode(error: unknown, code: string): boolean {
  return error instanceof TRPCClientError && (error as ClientError).data?.code === code;
}

/** Set once the tab is on its way to another page: a query answered after that sends it nowhere else. */
let leaving = false;

/**
 * Loads `url` in this tab (after signing in or out). A query that fails UNAUTHORIZED meanwhile (one sent as the
 * session ended) leaves the destination as it is.
 */
export function leaveTo(url: string) {
  leaving = true;
  // Back to this page from the browser's cache: it is this page again.
  window.addEventListener("pageshow", () => (leaving = false), { once: true });
  window.location.assign(url);
}

/** Sends the tab to `signInPath`, coming back here after sign-in, when `error` says the session is gone. */
function onAnyError(signInPath: string, error: unknown) {
  if (leaving) return;
  if (hasCode(error, "UNAUTHORIZED") && !window.location.pathname.startsWith(signInPath)) {
    const next = encodeURIComponent(window.location.pathname + window.location.search);
    window.location.assign(`${signInPath}?next=${next}`);
  }
}

/** Automatic retries of a failed query: at most this many after the first attempt. */
export const QUERY_RETRIES = 2;

/**
 * Whether TanStack Query retries a query that failed `failures` times with `error`. Client errors (4xx) do not
 * get better by retrying; an answer that says when to come back (503 of an outage, 429, with Retry-After:
 * docs/contract.md section 4 "Outages") is shown at once, with its "Try again", instead of skeletons while
 * the retries are refused again; a network failure or another 5xx is retried up to `QUERY_RETRIES` times.
 */
export function shouldRetry(failures: number, error: unknown): boolean {
  if (failures >= QUERY_RETRIES) return false;
  if (!(error instanceof TRPCClientError)) return true;
  const data = (error as ClientError).data;
  if (data?.retryAfterSeconds != null || data?.httpStatus === 503) return false;
  return (data?.httpStatus ?? 500) >= 500;
}

function makeQueryClient(signInPath: string) {
  const onError = (error: unknown) => onAnyError(signInPath, error);
  return new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: true,
        retry: shouldRetry,
      },
    },
  });
}

/** Provides the QueryClient and the tRPC client to the dashboard. */
export function TrpcProviders({
  children,
  signInPath = "/admin/sign-in",
}: {
  children: ReactNode;
  signInPath?: string;
}) {
  const [queryClient] = useState(() => makeQueryClient(signInPath));
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: "/api/trpc", maxItems: TRPC_MAX_BATCH_SIZE })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
