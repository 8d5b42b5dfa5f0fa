"use client";
/** What every page of the dashboard and the portal needs: the Mantine theme and toasts, nuqs and tRPC. */
import {
  type CSSVariablesResolver,
  createTheme,
  darken,
  defaultVariantColorsResolver,
  MantineProvider,
  Modal,
  NavLink,
  Notification,
  parseThemeColor,
} from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { setNonce } from "get-nonce";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import type { ReactNode } from "react";
import { z } from "zod";
import { TrpcProviders } from "./trpc";

// In the browser zod must not probe for `new Function` (its JIT): the page's CSP forbids eval, and the browser
// reports even a probe that fails quietly as a violation. The server keeps the JIT.
z.config({ jitless: true });

/** Colours whose shade 9 is still too light as text on their own light background. */
const PALE = new Set(["yellow", "orange", "lime"]);

/**
 * Tuned so that text meets WCAG AA contrast (4.5:1): "light", "dot" and "subtle" variants (badges, active links,
 * buttons on a hovered row) get darker text, dimmed text is gray 7, field errors red 9, links a darkened teal 9;
 * the close buttons of dialogs and toasts are named.
 */
const theme = createTheme({
  primaryColor: "teal",
  primaryShade: { light: 9, dark: 7 },
  defaultRadius: "md",
  fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
  variantColorResolver: (input) => {
    const result = defaultVariantColorsResolver(input);
    if (!["light", "dot", "subtle"].includes(input.variant ?? "")) return result;
    const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
    if (!parsed.isThemeColor || !input.theme.colors[parsed.color]) return result;
    // Shade 9 on shade 1 is only ~4.3:1 for teal (2.7:1 for yellow); darkened it clears 4.5:1 everywhere.
    const color = darken(input.theme.colors[parsed.color]?.[9] ?? "", PALE.has(parsed.color) ? 0.35 : 0.2);
    return { ...result, color, hoverColor: color };
  },
  // Transitions, loaders and skeletons stand still for people whose system asks for reduced motion (WCAG 2.3.3).
  respectReducedMotion: true,
  components: {
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": "Close dialog" } } }),
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { "aria-label": "Dismiss notification" } },
      styles: { description: { color: "var(--mantine-color-dimmed)" } },
    }),
    // An explicit variant makes NavLink take its colours from the resolver above.
    NavLink: NavLink.extend({ defaultProps: { variant: "light" } }),
  },
});

const cssVariablesResolver: CSSVariablesResolver = (resolved) => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    "--mantine-color-error": "var(--mantine-color-red-9)",
    // Links in a highlighted table row sit on gray 1, where teal 9 is 4.49:1.
    "--mantine-color-anchor": darken(resolved.colors.teal?.[9] ?? "#087f5b", 0.15),
  },
  dark: {},
});

/** `nonce`: the page's CSP nonce (proxy.ts), for the styles Mantine writes; `signInPath`: where an ended session goes. */
export function Providers({
  children,
  nonce,
  signInPath,
}: {
  children: ReactNode;
  nonce?: string;
  signInPath: string;
}) {
  // Mantine's modals lock scrolling with react-remove-scroll, which takes the nonce of its <style> from get-nonce.
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
