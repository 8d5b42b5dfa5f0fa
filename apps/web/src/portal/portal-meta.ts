/** Types of the portal's data, from the router. */
import type { RouterOutputs } from "@/server/trpc/router";

export type PortalAccount = RouterOutputs["portal"]["account"];
export type PortalKey = RouterOutputs["portal"]["keys"]["list"][number];

/** A key that still works or will: neither revoked nor expired. */
export const isUsable = (key: Pick<PortalKey, "state">) => key.state !== "revoked" && key.state !== "expired";
