"use client";
/**
 * The scopes of an API key as a group of checkboxes (docs/contract.md section 2, "Scopes"): one per scope, with
 * what it allows; at least one must stay checked (the contract's ApiKeyScopes says so, the form shows why).
 * `ScopeBadges` shows a key's scopes; `RestrictedScopes` says, in a list row, which ones a key is limited to.
 */
import { Badge, Checkbox, Group, Stack, Text } from "@mantine/core";
import { API_KEY_SCOPES, type ApiKeyScope, SCOPE_DESCRIPTIONS } from "@petstore/contracts";

export function ScopesField({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange(value: string[]): void;
  error?: string | undefined;
}) {
  return (
    <Checkbox.Group
      label="Scopes"
      description="What the key may do. Give a client only what it needs."
      value={value}
      onChange={onChange}
      error={error}
      withAsterisk
    >
      <Stack gap="xs" mt="xs">
        {API_KEY_SCOPES.map((scope) => (
          <Checkbox
            key={scope}
            value={scope}
            label={scope}
            description={`May ${SCOPE_DESCRIPTIONS[scope]}.`}
          />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}

/** A key's scopes as badges, in the contract's order. */
export function ScopeBadges({ scopes }: { scopes: readonly ApiKeyScope[] }) {
  return (
    <Group gap={4} component="span">
      {scopes.map((scope) => (
        <Badge key={scope} variant="outline" size="sm" tt="none">
          {scope}
        </Badge>
      ))}
    </Group>
  );
}

/** For a key without every scope, a line saying which it has ("only pets:read"); nothing for the usual key. */
export function RestrictedScopes({ scopes }: { scopes: readonly ApiKeyScope[] }) {
  if (scopes.length >= API_KEY_SCOPES.length) return null;
  return (
    <Text size="xs" c="dimmed">
      only {scopes.join(", ")}
    </Text>
  );
}
