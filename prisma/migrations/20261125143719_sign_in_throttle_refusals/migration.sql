-- AlterTable
ALTER TABLE "SignInThrottle" ADD COLUMN     "refusals" INTEGER NOT NULL DEFAULT 0;
