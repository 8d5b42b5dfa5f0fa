import { Text } from "@mantine/core";

/** " (you)" after a person's name in a list of people, when the row is the signed-in user's own. */
export function YouMarker({ shown }: { shown: boolean }) {
  return shown ? (
    <Text span c="dimmed" size="xs">
      {" "}
      (you)
    </Text>
  ) : null;
}
