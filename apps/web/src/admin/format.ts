/** Display formatting shared by the dashboard pages. */

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium" });
const number = new Intl.NumberFormat("en-GB");

/** `12 Mar 2026, 14:05` in the viewer's time zone; `—` for null. */
export const formatDateTime = (iso: string | null | undefined) =>
  iso ? dateTime.format(new Date(iso)) : "—";

const timeOnly = new Intl.DateTimeFormat("en-GB", { timeStyle: "short" });

/** `14:05` in the viewer's time zone. */
export const formatTime = (date: Date) => timeOnly.format(date);

/** `12 Mar 2026`; `—` for null. */
export const formatDate = (iso: string | null | undefined) => (iso ? dateOnly.format(new Date(iso)) : "—");

/** `12,345`; `—` for null. */
export const formatNumber = (n: number | null | undefined) =>
  n === null || n === undefined ? "—" : number.format(n);

/** `Free`, `Pro`, ... */
export const planLabel = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);

export const STATUS_LABELS = {
  available: "Available",
  pending: "Pending",
  sold: "Sold",
  none: "No status",
} as const;
export const STATUS_COLORS = { available: "teal", pending: "yellow", sold: "gray", none: "blue" } as const;
