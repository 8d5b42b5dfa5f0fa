-- CreateTable
CREATE TABLE "DeploymentSetting" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DeploymentSetting_pkey" PRIMARY KEY ("name")
);
