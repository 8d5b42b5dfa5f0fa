/**
 * How an API key is shown to admins (dashboard, CLI; docs/contract.md section 4): its state and a view
 * without the hash.
 * The secret itself is never part of a view.
 */
import { API_KEY_SCOPES, type ApiKeyScope, type PlanName } from "@petstore/contracts";
import type { ApiKey, Plan } from "@petstore/db";
import { DAY_MS } from "../utc-day.ts";
import { effectiveLimits, isLive, isRevoked } from "./policy.ts";

/** A key that expires sooner than this is shown as `expiring`. */
export const EXPIRING_SOON_MS = 7 * DAY_MS;

export type ApiKeyState = "active" | "expiring" | "expired" | "revoked" | "banned";

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  plan: PlanName;
  /** What the key may do, in `API_KEY_SCOPES` order (docs/contract.md section 2, "Scopes"). */
  scopes: ApiKeyScope[];
  environment: "production" | "staging";
  state: ApiKeyState;
  perMinute: number | null;
  perDay: number | null;
  effectivePerMinute: number | null;
  effectivePerDay: number | null;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  bannedUntil: string | null;
  rolledToId: string | null;
  /** The consumer account that holds the key (docs/contract.md section 7), or null. */
  accountId: string | null;
  /** The addresses and CIDR ranges the key may call from; empty: anywhere (docs/contract.md section 2). */
  allowedIps: string[];
  /** When the key was reported leaked, by `github` or the `dashboard`, and where (docs/contract.md section 2). */
  leakedAt: string | null;
  leakSource: "github" | "dashboard" | null;
  leakUrl: string | null;
}

/** A key of the same lineage, as a link: its id and display prefix. */
export interface ApiKeyLink {
  id: string;
  prefix: string;
}

/** One key with its lineage (docs/contract.md section 2, "Roll"): the key it replaced and its replacement. */
export interface ApiKeyDetail extends ApiKeyView {
  rolledFrom: ApiKeyLink | null;
  rolledTo: ApiKeyLink | null;
}

/** A freshly issued key: the only time `key` (the secret) is ever returned. */
export interface IssuedApiKey {
  id: string;
  key: string;
  prefix: string;
  plan: PlanName;
  scopes: ApiKeyScope[];
  expiresAt: string | null;
}

export type KeyWithPlan = ApiKey & { plan: Plan };

/** A row's scopes in `API_KEY_SCOPES` order (the database keeps them known and non-empty). */
export const scopesOf = (key: Pick<ApiKey, "scopes">): ApiKeyScope[] =>
  API_KEY_SCOPES.filter((s) => key.scopes.includes(s));

export function apiKeyState(
  key: Pick<ApiKey, "revokedAt" | "expiresAt" | "bannedUntil">,
  now: Date,
): ApiKeyState {
  if (!isLive(key, now)) return isRevoked(key, now) ? "revoked" : "expired";
  if (key.bannedUntil && key.bannedUntil > now) return "banned";
  if (key.expiresAt && key.expiresAt.getTime() - now.getTime() < EXPIRING_SOON_MS) return "expiring";
  return "active";
}

export function toView(key: KeyWithPlan, now: Date): ApiKeyView {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  const limits = effectiveLimits(key);
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    plan: key.planName,
    scopes: scopesOf(key),
    environment: key.environment,
    state: apiKeyState(key, now),
    perMinute: key.perMinute,
    perDay: key.perDay,
    effectivePerMinute: limits.perMinute,
    effectivePerDay: limits.perDay,
    createdBy: key.createdBy,
    createdAt: key.createdAt.toISOString(),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    lastUsedAt: iso(key.lastUsedAt),
    bannedUntil: iso(key.bannedUntil),
    rolledToId: key.rolledToId,
    accountId: key.accountId,
    allowedIps: key.allowedIps,
    leakedAt: iso(key.leakedAt),
    leakSource: key.leakSource as ApiKeyView["leakSource"],
    leakUrl: key.leakUrl,
  };
}

export const auditView = (key: ApiKey) => ({ ...key, hash: undefined });
