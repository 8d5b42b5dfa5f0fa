-- API key scopes (docs/contract.md section 2, "Scopes"). Every existing key gets both scopes, the default, so
-- nothing any client does today stops working.
-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "scopes" TEXT[] DEFAULT ARRAY['pets:read', 'pets:write']::TEXT[];

-- A key holds at least one scope and only known ones. schema.prisma cannot express this (a Prisma list is a
-- nullable column), so the database keeps the rule here; the NOT NULL is inside the CHECK, because Prisma's
-- diff would drop a column-level NOT NULL again.
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_scopes_check" CHECK (
  "scopes" IS NOT NULL
  AND cardinality("scopes") >= 1
  AND "scopes" <@ ARRAY['pets:read', 'pets:write']::TEXT[]
);
