-- CreateTable: brownouts of deprecated operations (docs/contract.md section 4, "Brownouts").
CREATE TABLE "Brownout" (
    "id" UUID NOT NULL,
    "operation" TEXT NOT NULL,
    "startsAt" TIMESTAMP(3) NOT NULL,
    "endsAt" TIMESTAMP(3) NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Brownout_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Brownout_window" CHECK ("endsAt" > "startsAt")
);

-- CreateIndex
CREATE INDEX "Brownout_endsAt_idx" ON "Brownout"("endsAt");
