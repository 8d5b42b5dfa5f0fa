"use client";
/** The browser's tRPC client over TanStack Query: typed hooks, retries, and back to sign-in when a session ends. */
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

/** Loads `url` in this tab (after signing in or out), whatever queries fail UNAUTHORIZED meanwhile. */
export function leaveTo(url: string) {
  leaving = true;
  // Back to this page from the browser's cache: it is this page again.
  window.addEventListener("pageshow", () => (leaving = false), { once: true });
  window.location.assign(url);
}

/** Automatic retries of a failed query: at most this many after the first attempt. */
export const QUERY_RETRIES = 2;

/**
 * Whether TanStack Query retries a query that failed `failures` times with `error`: a network failure or a 5xx
 * up to QUERY_RETRIES times; never a 4xx, nor an answer with Retry-After (a 503 outage, a 429), which is shown at
 * once with its "Try again" (docs/contract.md section 4 "Outages").
 */
export function shouldRetry(failures: number, error: unknown): boolean {
  if (failures >= QUERY_RETRIES) return false;
  if (!(error instanceof TRPCClientError)) return true;
  const data = (error as ClientError).data;
  if (data?.retryAfterSeconds != null || data?.httpStatus === 503) return false;
  return (data?.httpStatus ?? 500) >= 500;
}

function makeQueryClient(signInPath: string) {
  // A call answered UNAUTHORIZED (the session expired or ended elsewhere) sends the tab to sign in, then back here.
  const onError = (error: unknown) => {
    if (leaving || !hasCode(error, "UNAUTHORIZED") || window.location.pathname.startsWith(signInPath)) return;
    const next = encodeURIComponent(window.location.pathname + window.location.search);
    window.location.assign(`${signInPath}?next=${next}&reason=ended`);
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: true, retry: shouldRetry } },
  });
}

/** The QueryClient and the tRPC client of one browser tab. */
export function TrpcProviders({ children, signInPath }: { children: ReactNode; signInPath: string }) {
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
