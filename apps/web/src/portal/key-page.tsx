"use client";
/**
 * One key of the member's account: its settings and state, its lineage (the key it was rolled from and to, linked),
 * roll and revoke, and its recent requests.
 */
import { useQuery } from "@tanstack/react-query";
import { Field, Notice, RouteLink } from "@/ui/components/page";
import { QueryState } from "@/ui/components/query-state";
import { KeySummary } from "@/ui/keys/key-summary";
import { LineageLink } from "@/ui/keys/lineage-link";
import { RecentRequests } from "@/ui/keys/recent-requests";
import { useTRPC } from "@/ui/trpc";
import { KeyButtons } from "./key-buttons";

export function KeyPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const keys = useQuery({ ...trpc.portal.keys.list.queryOptions(), refetchInterval: 10_000 });
  const key = keys.data?.find((k) => k.id === id);
  // The lineage: only `get` reads it (the list does not).
  const detail = useQuery({ ...trpc.portal.keys.get.queryOptions({ id }), enabled: Boolean(key) });
  const suspended = useQuery(trpc.portal.account.queryOptions()).data?.state === "suspended";
  if (keys.isSuccess && !key)
    return (
      <Notice title="Key not found" back={["/portal", "← Your account"]}>
        Your account has no API key at this address. It may have been mistyped.
      </Notice>
    );
  return (
    <>
      <RouteLink href="/portal" size="sm">
        ← Your account
      </RouteLink>
      <QueryState query={keys} errorTitle="Could not load this key" skeletonRows={3}>
        {() =>
          key ? (
            <KeySummary
              apiKey={key}
              actions={<KeyButtons apiKey={key} suspended={suspended} size="sm" />}
              more={
                <>
                  <Field label="Rolled from">
                    <LineageLink link={detail.data?.rolledFrom ?? null} base="/portal/keys" relation="from" />
                  </Field>
                  <Field label="Rolled to">
                    <LineageLink link={detail.data?.rolledTo ?? null} base="/portal/keys" relation="to" />
                  </Field>
                </>
              }
            />
          ) : null
        }
      </QueryState>
      <RecentRequests scope="portal" keyId={id} lastUsedAt={key?.lastUsedAt ?? null} />
    </>
  );
}
