"use client";
/** Everything the dashboard's client components need: Mantine (theme, toasts) and tRPC. */
import { MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import type { ReactNode } from "react";
import { cssVariablesResolver, theme } from "./theme";
import { TrpcProviders } from "./trpc";

export function AdminProviders({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <Notifications position="top-right" limit={4} />
      <TrpcProviders>{children}</TrpcProviders>
    </MantineProvider>
  );
}
