"use client";
/**
 * The dialogs, each mounted only while open (a list of 100 rows holds no closed dialogs, nor their mutations): a
 * form, a confirmation, a confirmed mutation; the button and the menu that open them.
 */
import {
  Alert,
  Button,
  type ButtonProps,
  Group,
  Menu,
  Modal,
  type ModalProps,
  Stack,
  Text,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import type { UseMutationOptions } from "@tanstack/react-query";
import { type FormEvent, Fragment, type ReactNode, useEffect, useState } from "react";
import { type MutationFeedback, useNotifiedMutation } from "./feedback";

type DialogProps = Omit<ModalProps, "opened" | "centered">;

/** A Mantine Modal that is open while mounted, and gives the focus back to what opened it. */
export function Dialog(props: DialogProps) {
  // Mantine returns the focus when `opened` turns false, which a dialog unmounted on closing never does.
  const [opener] = useState(() => document.activeElement);
  useEffect(
    () => () => (opener instanceof HTMLElement ? opener.focus({ preventScroll: true }) : undefined),
    [opener],
  );
  return <Modal opened centered {...props} />;
}

export interface FormModalProps<Out> extends Omit<DialogProps, "children" | "onSubmit"> {
  /** A use-zod-form form: its valid input goes to `mutation`, its whole-form error shows above the buttons. */
  form: { onSubmit(send: (input: Out) => void): (event: FormEvent) => void; errors: Record<string, string> };
  mutation: { mutate(input: Out): void; isPending: boolean };
  submitLabel: string;
  /** Shown instead of the form once it is done (a secret shown once); the dialog then closes by its button only. */
  done?: ReactNode;
  /** The fields. */
  children: ReactNode;
}

/** A dialog holding one form: its fields, Cancel, and the submit button, busy while the mutation runs. */
export function FormModal<Out>({
  form,
  mutation,
  submitLabel,
  done,
  children,
  ...dialog
}: FormModalProps<Out>) {
  return (
    <Dialog closeOnClickOutside={!done} closeOnEscape={!done} {...dialog}>
      {done ?? (
        <form onSubmit={form.onSubmit((input) => mutation.mutate(input))} noValidate>
          <Stack>
            {children}
            {form.errors.form ? (
              <Alert color="red" role="alert">
                {form.errors.form}
              </Alert>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={dialog.onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={mutation.isPending}>
                {submitLabel}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Dialog>
  );
}

export interface ConfirmDialogProps {
  onClose(): void;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** The action; resolves when done (the dialog then closes), rejects to keep it open. */
  onConfirm(): Promise<unknown>;
  /** Red unless said: most confirmations guard destructive actions. */
  confirmColor?: string;
}

/** Names the consequence; runs `onConfirm` only when confirmed, busy until it settles. */
export function ConfirmDialog({
  onClose,
  title,
  message,
  confirmLabel,
  onConfirm,
  confirmColor = "red",
}: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
      onClose();
    } catch {
      // The caller reported the failure; the dialog stays for a retry or Cancel.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog onClose={onClose} title={title}>
      <Text size="sm">{message}</Text>
      <Group justify="flex-end" mt="lg">
        <Button variant="default" onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button color={confirmColor} onClick={confirm} loading={busy} data-autofocus>
          {confirmLabel}
        </Button>
      </Group>
    </Dialog>
  );
}

export interface ConfirmActionProps
  extends Omit<ButtonProps, "children" | "onClick">,
    Omit<ConfirmDialogProps, "onClose"> {
  label: ReactNode;
  /** Accessible name when the label alone is ambiguous (e.g. "Delete Rex"). */
  ariaLabel?: string;
}

/** A button that asks for confirmation before its action. */
export function ConfirmAction({
  label,
  ariaLabel,
  title,
  message,
  confirmLabel,
  onConfirm,
  confirmColor = "red",
  ...button
}: ConfirmActionProps) {
  const [opened, { open, close }] = useDisclosure(false);
  const dialog = { title, message, confirmLabel, onConfirm, confirmColor };
  return (
    <>
      <Button
        color={confirmColor}
        variant="light"
        size="xs"
        aria-label={ariaLabel}
        {...button}
        onClick={open}
      >
        {label}
      </Button>
      {opened ? <ConfirmDialog onClose={close} {...dialog} /> : null}
    </>
  );
}

/** A confirmation that runs one mutation with `input`, giving the feedback of `feedback`. */
export function ConfirmMutation<TData, TError, TInput>({
  options,
  input,
  feedback,
  ...dialog
}: Omit<ConfirmDialogProps, "onConfirm"> & {
  options: UseMutationOptions<TData, TError, TInput, unknown>;
  input: TInput;
  feedback: MutationFeedback<TData, TInput>;
}) {
  const mutation = useNotifiedMutation(options, feedback);
  return <ConfirmDialog {...dialog} onConfirm={() => mutation.mutateAsync(input)} />;
}

export interface MenuAction {
  /** The item's label, which also names the open dialog. */
  label: string;
  /** The dialog the item opens, mounted while open; `close` closes it. */
  dialog?(close: () => void): ReactNode;
  /** What the item does at once, without a dialog. */
  run?(): void;
  hidden?: boolean;
  /** Red, after a divider: destructive. */
  danger?: boolean;
}

/** A record's actions in an "Actions" menu (`name` is its accessible name); a dialog exists only while open. */
export function ActionMenu({
  name,
  size,
  actions,
}: {
  name: string;
  size: "xs" | "sm";
  actions: MenuAction[];
}) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <Menu position="bottom-end" withinPortal shadow="md">
        <Menu.Target>
          <Button size={size} variant="default" aria-label={name}>
            Actions
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {actions
            .filter((a) => !a.hidden)
            .map((a) => (
              <Fragment key={a.label}>
                {a.danger ? <Menu.Divider /> : null}
                <Menu.Item
                  color={a.danger ? "red.9" : undefined}
                  onClick={() => (a.dialog ? setOpen(a.label) : a.run?.())}
                >
                  {a.label}
                </Menu.Item>
              </Fragment>
            ))}
        </Menu.Dropdown>
      </Menu>
      {/* Found among the hidden ones too: the change it confirms may hide the item before the dialog closes. */}
      {actions.find((a) => a.label === open)?.dialog?.(() => setOpen(null))}
    </>
  );
}
