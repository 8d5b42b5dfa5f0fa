/** How the dashboard and the portal print dates, numbers, plans and animal statuses. */
const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium" });
const number = new Intl.NumberFormat("en-GB");

/** `12 Mar 2026, 14:05` in the viewer's time zone; `—` for null. */
export const formatDateTime = (iso: string | null | undefined) =>
  iso ? dateTime.format(new Date(iso)) : "—";

const dateTimeSeconds = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });

/** `12 Mar 2026, 14:05:09` in the viewer's time zone (logs, where the minute is not precise enough); `—` for null. */
export const formatDateTimeSeconds = (iso: string | null | undefined) =>
  iso ? dateTimeSeconds.format(new Date(iso)) : "—";

const timeOnly = new Intl.DateTimeFormat("en-GB", { timeStyle: "short" });

/** `14:05` in the viewer's time zone. */
export const formatTime = (date: Date) => timeOnly.format(date);

/** `12 Mar 2026`; `—` for null. */
export const formatDate = (iso: string | null | undefined) => (iso ? dateOnly.format(new Date(iso)) : "—");

/** `12,345`; `—` for null. */
export const formatNumber = (n: number | null | undefined) =>
  n === null || n === undefined ? "—" : number.format(n);

/** A count the server may have stopped at (docs/contract.md section 4 "Counts at scale"): `10,000+`. */
export const formatCappedCount = (n: number, exact: boolean) => `${number.format(n)}${exact ? "" : "+"}`;

/** A count the server estimated above its counting cap: `about 498,000` (three significant digits). */
export const formatEstimate = (n: number, exact: boolean) =>
  exact ? number.format(n) : `about ${number.format(Number(n.toPrecision(3)))}`;

const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

/** Short form for tight places (a chart's centre): `9,876`, `12K`, `1M`; `≈1M` when `exact` is false. */
export const formatShortCount = (n: number, exact: boolean) =>
  `${exact ? "" : "≈"}${n < 10_000 ? number.format(n) : compact.format(n)}`;

/** `Free`, `Pro`, ... */
export const planLabel = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);

export const STATUS_LABELS = {
  available: "Available",
  pending: "Pending",
  sold: "Sold",
  none: "No status",
} as const;
export const STATUS_COLORS = { available: "teal", pending: "yellow", sold: "gray", none: "blue" } as const;
