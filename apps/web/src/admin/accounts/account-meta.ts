/** Types, labels and colours of the Accounts pages; account types come from the router. */
import { PLAN_NAMES } from "@petstore/contracts";
import type { RouterOutputs } from "@/server/trpc/router";
import { planLabel } from "@/ui/format";

/** One row of the Accounts list. */
export type AccountRow = RouterOutputs["accounts"]["list"][number];
/** One account as its page shows it: members, open invitations and keys. */
export type AccountDetail = RouterOutputs["accounts"]["get"];

export const ACCOUNT_STATE_COLORS: Record<AccountRow["state"], string> = { active: "teal", suspended: "red" };
export const ACCOUNT_STATE_LABELS: Record<AccountRow["state"], string> = {
  active: "Active",
  suspended: "Suspended",
};

/** `2 / 10` live keys of a plan's cap, or `2 (no cap)`. */
export const keysOfCap = (keys: number, maxKeys: number | null) =>
  maxKeys === null ? `${keys} (no cap)` : `${keys} / ${maxKeys}`;

/** The plans an account can be on, in their one order (contracts' PLAN_NAMES). */
export const ACCOUNT_PLAN_OPTIONS = PLAN_NAMES.map((value) => ({ value, label: planLabel(value) }));
