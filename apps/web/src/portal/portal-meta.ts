/** Types of the portal's data, from the router. */
import type { RouterOutputs } from "@/server/trpc/router";

export type PortalAccount = RouterOutputs["portal"]["account"];
export type PortalKey = RouterOutputs["portal"]["keys"]["list"][number];
