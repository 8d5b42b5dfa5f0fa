"use client";
/**
 * Client side of the dashboard's tRPC API: typed hooks (`useTRPC`) over TanStack Query, one QueryClient per
 * browser tab. When any call answers UNAUTHORIZED (session expired or ended elsewhere) the tab goes back
 * to the sign-in page.
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { type ReactNode, useState } from "react";
import { TRPC_MAX_BATCH_SIZE } from "@/server/trpc/limits";
import type { AppRouter } from "@/server/trpc/router";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

export type ClientError = TRPCClientError<AppRouter>;

/** True when `error` is a tRPC error with HTTP-like `code`. */
export function hasCode(error: unknown, code: string): boolean {
  return error instanceof TRPCClientError && (error as ClientError).data?.code === code;
}

function onAnyError(error: unknown) {
  if (hasCode(error, "UNAUTHORIZED") && !window.location.pathname.startsWith("/admin/sign-in")) {
    const next = encodeURIComponent(window.location.pathname + window.location.search);
    window.location.assign(`/admin/sign-in?next=${next}`);
  }
}

function makeQueryClient() {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onAnyError }),
    mutationCache: new MutationCache({ onError: onAnyError }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: true,
        // Client errors (4xx) do not get better by retrying.
        retry: (failures, error) =>
          failures < 2 && !(error instanceof TRPCClientError && (error.data?.httpStatus ?? 500) < 500),
      },
    },
  });
}

/** Provides the QueryClient and the tRPC client to the dashboard. */
export function TrpcProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
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
