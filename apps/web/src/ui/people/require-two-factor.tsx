"use client";
/** A switch requiring two-factor sign-in of a group of people (staff, or an account's members); read-only without `onChange`. */
import { Switch } from "@mantine/core";

export function RequireTwoFactorSwitch({
  checked,
  label,
  description,
  onChange,
  busy,
}: {
  checked: boolean;
  label: string;
  description: string;
  onChange?: (required: boolean) => void;
  busy?: boolean;
}) {
  return (
    <Switch
      checked={checked}
      label={label}
      description={description}
      disabled={!onChange || busy}
      onChange={(e) => onChange?.(e.currentTarget.checked)}
      mb="md"
    />
  );
}
