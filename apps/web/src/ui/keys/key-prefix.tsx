/** A key's display prefix with the part that tells keys apart in view: the characters after `pet_test_`/`pet_live_`. */
import { Code, VisuallyHidden } from "@mantine/core";

const ENVIRONMENT_HEAD = /^pet_(?:test|live)_/;

/**
 * `prefix` as `<code>`: the environment's head (`pet_test_`) is read by screen readers and copied with the rest but
 * not shown, as the table says the environment; the distinguishing tail and `…` are shown.
 */
export function KeyPrefix({ prefix }: { prefix: string }) {
  const head = ENVIRONMENT_HEAD.exec(prefix)?.[0] ?? "";
  return (
    <Code title={`${prefix}…`} style={{ whiteSpace: "nowrap" }}>
      {head ? <VisuallyHidden component="span">{head}</VisuallyHidden> : null}
      {prefix.slice(head.length)}…
    </Code>
  );
}
