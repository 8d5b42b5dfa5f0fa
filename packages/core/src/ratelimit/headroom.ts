/**
 * What this instance last learned of each key's room in its windows (key-checks.ts): the checks of one key made in
 * the same event-loop turn are counted in one store round trip only when the room the store last reported fits
 * them all. So a key far from its limits pays one round trip per turn, however many requests it sends, while a key
 * near a limit, or not seen in its current windows yet, is counted request by request, exactly as when each
 * request came alone. The room is a hint, never a decision: the store's counters decide, and a group that does not
 * fit after all (another instance used the room meanwhile) is given back and counted request by request.
 */
import { BoundedMap } from "../bounded-map.ts";

/** Rooms remembered at most (the oldest are forgotten first: a forgotten key is counted request by request). */
const MAX_KEYS = 10_000;

interface Room {
  /** Requests left in the window with the fewest left. */
  remaining: number;
  /** Unix ms at which the first of the windows ends: the room is unknown from then on. */
  until: number;
}

/** Rooms by an identifier of the limiter's choosing (a key and its limits). */
export class Headroom {
  private readonly rooms = new BoundedMap<string, Room>(MAX_KEYS);

  /**
   * Sets aside room for `count` requests in room `id` at `at` (Unix ms).
   * @returns true when the last report left at least `count` requests in every window (they are then deducted
   *   until the store reports again); false when the room is unknown, has ended or is too small.
   */
  take(id: string, count: number, at: number): boolean {
    const room = this.rooms.get(id);
    if (!room || room.until <= at || room.remaining < count) return false;
    room.remaining -= count;
    return true;
  }

  /** Records a store report for room `id`: `remaining` requests left in its tightest window, until `until` (Unix ms). */
  record(id: string, remaining: number, until: number): void {
    this.rooms.set(id, { remaining, until });
  }

  forget(id: string): void {
    this.rooms.delete(id);
  }
}
