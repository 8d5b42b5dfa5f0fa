"use client";
/**
 * Your sessions: each browser where you are signed in (device, address, sign-in, last use, and when it ends at the
 * latest), with "Sign out" per session and "Sign out other sessions"; ending this one signs this browser out.
 */
import { Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@/server/trpc/router";
import { QueryTable } from "@/ui/components/data-table";
import { PageHeader, StateBadge } from "@/ui/components/page";
import { ConfirmAction } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { formatDateTime, formatNumber } from "@/ui/format";
import { useTRPC } from "@/ui/trpc";

type Session = RouterOutputs["sessions"]["list"][number];

/** `signInPath`: where this browser goes once its own session is signed out. */
export function SessionsPage({ signInPath = "/admin/sign-in" }: { signInPath?: string }) {
  const trpc = useTRPC();
  const sessions = useQuery(trpc.sessions.list.queryOptions());
  const revoke = useNotifiedMutation(trpc.sessions.revoke.mutationOptions(), {
    invalidate: [trpc.sessions.pathKey()],
    success: () => "The session was signed out.",
    failure: "Could not sign the session out",
    onDone: ({ current }) => {
      if (current) window.location.assign(signInPath);
    },
  });
  const revokeOthers = useNotifiedMutation(trpc.sessions.revokeOthers.mutationOptions(), {
    invalidate: [trpc.sessions.pathKey()],
    success: ({ ended }) => `Signed out ${formatNumber(ended)} other session${ended === 1 ? "" : "s"}.`,
    failure: "Could not sign out the other sessions",
  });
  const others = (sessions.data ?? []).filter((s) => !s.current).length;

  return (
    <>
      <PageHeader
        title="Your sessions"
        description="Browsers where you are signed in. Sign out any you do not recognise."
        actions={
          others > 0 ? (
            <ConfirmAction
              label="Sign out other sessions"
              size="sm"
              title="Sign out your other sessions?"
              message={`${formatNumber(others)} other session${others === 1 ? "" : "s"} end at once. This browser stays signed in.`}
              confirmLabel={`Sign out ${formatNumber(others)}`}
              onConfirm={() => revokeOthers.mutateAsync()}
            />
          ) : null
        }
      />
      <QueryTable<Session>
        query={sessions}
        errorTitle="Could not load your sessions"
        label="Sessions table"
        rowKey={(s) => s.id}
        minWidth={900}
        columns={[
          {
            key: "device",
            header: "Device",
            title: true,
            cell: (s) => (
              <Text span fw={500}>
                {s.device}{" "}
                {s.current ? (
                  <StateBadge color="teal" ml={4}>
                    This browser
                  </StateBadge>
                ) : null}
              </Text>
            ),
          },
          { key: "ip", header: "Address", cell: (s) => s.ip ?? "Unknown" },
          { key: "created", header: "Signed in", cell: (s) => formatDateTime(s.createdAt) },
          { key: "seen", header: "Last seen", cell: (s) => formatDateTime(s.lastSeenAt) },
          { key: "ends", header: "Ends at the latest", cell: (s) => formatDateTime(s.endsAt) },
        ]}
        actions={(s) => (
          <ConfirmAction
            label="Sign out"
            ariaLabel={`Sign out ${s.device}${s.current ? " (this browser)" : ""}`}
            title={s.current ? "Sign out this browser?" : `Sign out ${s.device}?`}
            message={
              s.current ? "You will go back to the sign-in page." : "That browser will have to sign in again."
            }
            confirmLabel="Sign out"
            onConfirm={() => revoke.mutateAsync({ id: s.id })}
          />
        )}
      />
    </>
  );
}
