-- Consumer accounts of the developer portal (docs/contract.md section 7): accounts, their members (users with a
-- member role), invitations, the account of a key and the key cap of a plan.

ALTER TYPE "UserRole" ADD VALUE 'owner';
ALTER TYPE "UserRole" ADD VALUE 'developer';

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "accountId" UUID;

-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "maxKeys" INTEGER;

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "accountId" UUID;

-- CreateTable
CREATE TABLE "Account" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "planName" "PlanName" NOT NULL,
    "suspendedAt" TIMESTAMP(3),
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Invitation" (
    "id" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "role" "UserRole" NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "acceptedAt" TIMESTAMP(3),

    CONSTRAINT "Invitation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Account_name_idx" ON "Account"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Invitation_tokenHash_key" ON "Invitation"("tokenHash");

-- CreateIndex
CREATE INDEX "Invitation_accountId_idx" ON "Invitation"("accountId");

-- CreateIndex
CREATE INDEX "ApiKey_accountId_idx" ON "ApiKey"("accountId");

-- CreateIndex
CREATE INDEX "User_accountId_idx" ON "User"("accountId");

-- AddForeignKey
ALTER TABLE "Account" ADD CONSTRAINT "Account_planName_fkey" FOREIGN KEY ("planName") REFERENCES "Plan"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Invitation" ADD CONSTRAINT "Invitation_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "User" ADD CONSTRAINT "User_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A member role goes with an account and a staff role without one; invitations are to member roles only. The
-- roles are compared as text: enum values added in this migration cannot be used before it commits.
ALTER TABLE "User" ADD CONSTRAINT "User_member_has_account"
  CHECK (("role"::text IN ('owner', 'developer')) = ("accountId" IS NOT NULL));
ALTER TABLE "Invitation" ADD CONSTRAINT "Invitation_member_role"
  CHECK ("role"::text IN ('owner', 'developer'));

-- How many live keys an account may hold per plan (docs/contract.md section 7); enterprise has no cap.
UPDATE "Plan" SET "maxKeys" = CASE "name" WHEN 'free' THEN 3 WHEN 'pro' THEN 10 WHEN 'business' THEN 25 ELSE NULL END;
