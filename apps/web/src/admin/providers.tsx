"use client";
/** Everything the dashboard's client components need: Mantine (theme, toasts) and tRPC. */
import { createTheme, MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import type { ReactNode } from "react";
import { TrpcProviders } from "./trpc";

const theme = createTheme({
  primaryColor: "teal",
  // Darker shade of the primary colour: white text on filled buttons keeps a 4.5:1 contrast.
  primaryShade: { light: 8, dark: 7 },
  defaultRadius: "md",
  fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
});

export function AdminProviders({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} defaultColorScheme="light">
      <Notifications position="top-right" limit={4} />
      <TrpcProviders>{children}</TrpcProviders>
    </MantineProvider>
  );
}
