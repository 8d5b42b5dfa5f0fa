"use client";
/**
 * An owner invites a member (email and role); the invitation link is then shown once, with a copy button, to pass
 * on to the person invited: it works for 72 hours, once. The fields and the link are the admin's dialog's.
 */
import { Modal } from "@mantine/core";
import { InvitationCreate } from "@petstore/contracts";
import { InvitationOnce } from "@/admin/accounts/invitation-once";
import { InviteFields } from "@/admin/accounts/invite-member-modal";
import { onValidSubmit } from "@/admin/forms/submit";
import { useTRPC } from "@/admin/trpc";
import { useNotifiedMutation } from "@/admin/use-notified-mutation";
import { useZodForm } from "@/admin/use-zod-form";

export function InviteModal({ onClose }: { onClose(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(InvitationCreate, { email: "", role: "developer" }, (v) => ({
    email: v.email.trim(),
    role: v.role,
  }));
  const invite = useNotifiedMutation(trpc.portal.invite.mutationOptions(), {
    invalidate: [trpc.portal.pathKey()],
    success: (i) => `${i.email} was invited.`,
    failure: "Could not send the invitation",
    form,
  });
  const submit = onValidSubmit(form, (input) => invite.mutate(input));
  const link = invite.data?.invitationUrl;
  return (
    <Modal
      opened
      onClose={onClose}
      title={link ? "Invitation link" : "Invite a member"}
      centered
      size="lg"
      closeOnClickOutside={!link}
      closeOnEscape={!link}
    >
      {link ? (
        <InvitationOnce url={link} email={invite.data?.email ?? ""} onDone={onClose} />
      ) : (
        <form onSubmit={submit} noValidate>
          <InviteFields form={form} pending={invite.isPending} onCancel={onClose} />
        </form>
      )}
    </Modal>
  );
}
