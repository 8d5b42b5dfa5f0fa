"use client";
/**
 * A user's actions: make admin or staff, end every session (disabled, saying why, while they have none),
 * deactivate (after confirming) or reactivate.
 */
import { Button, Tooltip, VisuallyHidden } from "@mantine/core";
import { useId } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { ConfirmAction } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { formatNumber } from "@/ui/format";
import { useTRPC } from "@/ui/trpc";

export type User = RouterOutputs["users"]["list"][number];

/** The actions of `user` (never shown on one's own row). */
export function UserActions({ user }: { user: User }) {
  const trpc = useTRPC();
  const invalidate = [trpc.users.pathKey()];
  const setRole = useNotifiedMutation(trpc.users.setRole.mutationOptions(), {
    invalidate,
    success: (u) => `${u.name} is now ${u.role}.`,
    failure: "Could not change the role",
  });
  const setActive = useNotifiedMutation(trpc.users.setActive.mutationOptions(), {
    invalidate,
    success: (u) => (u.active ? `${u.name} can sign in again.` : `${u.name} was deactivated and signed out.`),
    failure: (v) => (v.active ? "Could not reactivate the user" : "Could not deactivate the user"),
  });
  const endSessions = useNotifiedMutation(trpc.users.endSessions.mutationOptions(), {
    invalidate,
    success: ({ ended }) => `${user.name} was signed out of ${ended} session${ended === 1 ? "" : "s"}.`,
    failure: "Could not end the sessions",
  });
  const otherRole = user.role === "admin" ? "staff" : "admin";
  const noSessionsId = useId();
  return (
    <>
      <ConfirmAction
        label={`Make ${otherRole}`}
        ariaLabel={`Make ${otherRole}: ${user.name}`}
        confirmColor="blue"
        variant="default"
        title={`Make ${user.name} ${otherRole === "admin" ? "an admin" : "staff"}?`}
        message={
          otherRole === "admin"
            ? `${user.name} will be able to issue API keys, change plans, manage users and read the audit log.`
            : `${user.name} will keep access to animals and categories only.`
        }
        confirmLabel={`Make ${otherRole}`}
        onConfirm={() => setRole.mutateAsync({ id: user.id, role: otherRole })}
      />
      {user.activeSessions > 0 ? (
        <ConfirmAction
          label="End sessions"
          ariaLabel={`End sessions of ${user.name}`}
          title={`Sign ${user.name} out everywhere?`}
          message={`${user.name}'s ${formatNumber(user.activeSessions)} session${user.activeSessions === 1 ? "" : "s"} end at once; they can sign in again.`}
          confirmLabel={`End ${formatNumber(user.activeSessions)} session${user.activeSessions === 1 ? "" : "s"}`}
          onConfirm={() => endSessions.mutateAsync({ id: user.id })}
        />
      ) : (
        // Focusable while disabled (aria-disabled), so a keyboard reaches it and hears why.
        <>
          <Tooltip label={`${user.name} has no sessions to end.`}>
            <Button
              color="red"
              variant="light"
              size="xs"
              data-disabled
              aria-disabled="true"
              aria-label={`End sessions of ${user.name}`}
              aria-describedby={noSessionsId}
              onClick={(e) => e.preventDefault()}
            >
              End sessions
            </Button>
          </Tooltip>
          <VisuallyHidden id={noSessionsId}>{user.name} has no sessions to end.</VisuallyHidden>
        </>
      )}
      {user.active ? (
        <ConfirmAction
          label="Deactivate"
          ariaLabel={`Deactivate ${user.name}`}
          title={`Deactivate ${user.name}?`}
          message={`${user.name} will be signed out everywhere at once and will not be able to sign in until reactivated.`}
          confirmLabel="Deactivate"
          onConfirm={() => setActive.mutateAsync({ id: user.id, active: false })}
        />
      ) : (
        <Button
          size="xs"
          variant="light"
          aria-label={`Reactivate ${user.name}`}
          loading={setActive.isPending}
          onClick={() => setActive.mutate({ id: user.id, active: true })}
        >
          Reactivate
        </Button>
      )}
    </>
  );
}
