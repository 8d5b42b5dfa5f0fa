-- A monthly quota per plan and per account (docs/contract.md section 3): requests per UTC calendar month; null is
-- none on a plan and the plan's on an account.

-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "perMonth" INTEGER;

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "perMonth" INTEGER;

-- A quota is a whole number of requests from 1, as a limit is.
ALTER TABLE "Plan" ADD CONSTRAINT "Plan_perMonth_positive" CHECK ("perMonth" IS NULL OR "perMonth" >= 1);
ALTER TABLE "Account" ADD CONSTRAINT "Account_perMonth_positive" CHECK ("perMonth" IS NULL OR "perMonth" >= 1);
