"use client";
/** The member's account page: its summary, its API keys, and its members and open invitations. */
import { useQuery } from "@tanstack/react-query";
import { QueryState } from "@/admin/components/query-state";
import { useTRPC } from "@/admin/trpc";
import { AccountSummary } from "./account-summary";
import { KeysSection } from "./keys-section";
import { MembersSection } from "./members-section";

export function AccountPage() {
  const trpc = useTRPC();
  const account = useQuery(trpc.portal.account.queryOptions());
  return (
    <QueryState query={account} errorTitle="Could not load your account" skeletonRows={6}>
      {(a) => (
        <>
          <AccountSummary account={a} />
          <KeysSection account={a} />
          <MembersSection account={a} />
        </>
      )}
    </QueryState>
  );
}
