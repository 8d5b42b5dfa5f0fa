-- AlterTable: a key's IP allowlist (docs/contract.md section 2, "IP allowlists"); empty: from anywhere.
ALTER TABLE "ApiKey" ADD COLUMN "allowedIps" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
