import { Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";

/** A labelled value of a detail page: a small dimmed label over the value, which wraps anywhere (URLs, ids). */
export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" component="div" style={{ overflowWrap: "anywhere" }}>
        {children}
      </Text>
    </Stack>
  );
}
