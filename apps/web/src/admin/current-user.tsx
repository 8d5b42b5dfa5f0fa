"use client";
/** The signed-in user, provided by the dashboard layout (resolved on the server from the session cookie). */
import { createContext, type ReactNode, useContext } from "react";
import type { RouterOutputs } from "@/server/trpc/router";

export type CurrentUser = NonNullable<RouterOutputs["auth"]["me"]>;

const Context = createContext<CurrentUser | null>(null);

export function CurrentUserProvider({ user, children }: { user: CurrentUser; children: ReactNode }) {
  return <Context.Provider value={user}>{children}</Context.Provider>;
}

/** The signed-in user. @throws outside the dashboard layout. */
export function useCurrentUser(): CurrentUser {
  const user = useContext(Context);
  if (!user) throw new Error("useCurrentUser outside CurrentUserProvider");
  return user;
}
