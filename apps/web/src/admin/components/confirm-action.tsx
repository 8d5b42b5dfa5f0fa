"use client";
/**
 * Confirmation before destructive actions. `ConfirmDialog` is a Mantine Modal naming the consequence that
 * runs `onConfirm` only when the user confirms and stays open (with a spinner) until the action settles;
 * `ConfirmAction` is a button that opens one.
 */
import { Button, type ButtonProps, Group, Modal, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { type ReactNode, useState } from "react";

export interface ConfirmDialogProps {
  opened: boolean;
  onClose(): void;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** The action; resolves when done (the dialog then closes), rejects to keep it open. */
  onConfirm(): Promise<unknown>;
  /** Colour of the confirm button (red by default: most confirmations guard destructive actions). */
  confirmColor?: string;
}

export function ConfirmDialog({
  opened,
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
      // The caller reported the failure; keep the dialog so the user can retry or cancel.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <Text size="sm">{message}</Text>
      <Group justify="flex-end" mt="lg">
        <Button variant="default" onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button color={confirmColor} onClick={confirm} loading={busy} data-autofocus>
          {confirmLabel}
        </Button>
      </Group>
    </Modal>
  );
}

export interface ConfirmActionProps
  extends Omit<ButtonProps, "children" | "onClick">,
    Omit<ConfirmDialogProps, "opened" | "onClose"> {
  /** Button text. */
  label: ReactNode;
  /** Accessible name when the label alone is ambiguous (e.g. "Delete Rex"). */
  ariaLabel?: string;
}

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
      {/* Mounted only while open: a list shows this button on every row, and a closed dialog still costs a render. */}
      {opened ? (
        <ConfirmDialog
          opened
          onClose={close}
          title={title}
          message={message}
          confirmLabel={confirmLabel}
          onConfirm={onConfirm}
          confirmColor={confirmColor}
        />
      ) : null}
    </>
  );
}
