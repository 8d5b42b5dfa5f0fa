"use client";
/**
 * Everything the dashboard's client components need: Mantine (theme, toasts), tRPC, and nuqs (list
 * filters, sort, search and page kept in the URL, through its Next app-router adapter).
 */
import { MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { setNonce } from "get-nonce";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import type { ReactNode } from "react";
import { z } from "zod";
import { cssVariablesResolver, theme } from "./theme";
import { TrpcProviders } from "./trpc";

// In the browser zod must not probe for `new Function` (its JIT): the page's CSP forbids eval, and the browser
// reports even a probe that fails quietly as a violation. The server keeps the JIT.
z.config({ jitless: true });

/**
 * `nonce`: this page's CSP nonce (proxy.ts), put on the style elements Mantine and its modals write;
 * `signInPath`: where a tab whose session ended goes (the developer portal has its own sign-in page).
 */
export function AdminProviders({
  children,
  nonce,
  signInPath,
}: {
  children: ReactNode;
  nonce?: string;
  signInPath?: string;
}) {
  // Mantine's modals lock scrolling with react-remove-scroll, which writes a <style> element: it takes the
  // nonce from get-nonce.
  if (nonce) setNonce(nonce);
  return (
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="light"
      getStyleNonce={nonce ? () => nonce : undefined}
    >
      <Notifications position="top-right" limit={4} />
      <NuqsAdapter>
        <TrpcProviders signInPath={signInPath}>{children}</TrpcProviders>
      </NuqsAdapter>
    </MantineProvider>
  );
}
