/** Labels and colours of API key states, plans, expiry and grace choices; key types come from the router. */
import { DEFAULT_ROLL_GRACE_SECONDS, PLAN_NAMES } from "@petstore/contracts";
import type { RouterOutputs } from "@/server/trpc/router";

/** A key as the key page shows it (the list's rows have the same fields). */
export type ApiKey = RouterOutputs["apiKeys"]["get"];
export type KeyState = ApiKey["state"];
export type Plan = ApiKey["plan"];

export const STATE_COLORS: Record<KeyState, string> = {
  active: "teal",
  expiring: "yellow",
  expired: "gray",
  revoked: "red",
  banned: "orange",
};

const PLAN_LABELS: Record<Plan, string> = {
  free: "Free",
  pro: "Pro",
  business: "Business",
  enterprise: "Enterprise (custom limits)",
};

/** The plans in their one order (contracts' PLAN_NAMES). */
export const PLAN_OPTIONS: { value: Plan; label: string }[] = PLAN_NAMES.map((value) => ({
  value,
  label: PLAN_LABELS[value],
}));

export const STATE_LABELS: Record<KeyState, string> = {
  active: "Active",
  expiring: "Expiring soon",
  banned: "Banned",
  expired: "Expired",
  revoked: "Revoked",
};

export const EXPIRY_OPTIONS = [
  { value: "", label: "Never" },
  { value: String(7 * 86400), label: "In 7 days" },
  { value: String(30 * 86400), label: "In 30 days" },
  { value: String(90 * 86400), label: "In 90 days" },
  { value: String(365 * 86400), label: "In 1 year" },
];

export const GRACE_OPTIONS = [
  { value: String(DEFAULT_ROLL_GRACE_SECONDS), label: "24 hours (recommended)" },
  { value: String(3600), label: "1 hour" },
  { value: String(7 * 86400), label: "7 days" },
  { value: "0", label: "None: the old key stops working now" },
];
