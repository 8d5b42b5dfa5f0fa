-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_rolledToId_key" ON "ApiKey"("rolledToId");
