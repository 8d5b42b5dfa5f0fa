"use client";
/**
 * An owner invites a member (email and role); the invitation link is then shown once, with a copy button, to pass
 * on to the person invited: it works for 72 hours, once.
 */
import { Alert, Button, CopyButton, Group, Modal, Select, Stack, TextInput } from "@mantine/core";
import { Email, InvitationCreate, type MemberRole } from "@petstore/contracts";
import { onValidSubmit } from "@/admin/forms/submit";
import { useTRPC } from "@/admin/trpc";
import { useNotifiedMutation } from "@/admin/use-notified-mutation";
import { maxLengthOf, useZodForm } from "@/admin/use-zod-form";

const ROLE_OPTIONS = [
  { value: "developer", label: "Developer: manages the account's keys" },
  { value: "owner", label: "Owner: also invites members" },
] satisfies { value: MemberRole; label: string }[];

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
        <Stack>
          <Alert color="orange" title="Copy this link now" role="alert">
            Send it to {invite.data?.email}: it is shown only this once, works once, and expires in 72 hours.
          </Alert>
          <TextInput
            label="Invitation link"
            value={link}
            readOnly
            onFocus={(e) => e.currentTarget.select()}
          />
          <Group justify="space-between">
            <CopyButton value={link}>
              {({ copied, copy }) => (
                <Button color={copied ? "teal" : "blue"} variant={copied ? "light" : "filled"} onClick={copy}>
                  {copied ? "Copied" : "Copy link"}
                </Button>
              )}
            </CopyButton>
            <Button variant="default" onClick={onClose}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput
              label="Email"
              type="email"
              required
              value={form.values.email}
              onChange={(e) => form.setValue("email", e.currentTarget.value)}
              error={form.errors.email}
              maxLength={maxLengthOf(Email)}
              data-autofocus
            />
            <Select
              label="Role"
              data={ROLE_OPTIONS}
              value={form.values.role}
              onChange={(v) => form.setValue("role", v ?? "developer")}
              allowDeselect={false}
              error={form.errors.role}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={invite.isPending}>
                Invite
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
