/**
 * The deployment's public origin as its servers know it (PUBLIC_BASE_URL; docs/operations.md "The `petstore`
 * command"): a server records it in the database at start (DeploymentSetting `publicBaseUrl`), so that the
 * `petstore` command, run where PUBLIC_BASE_URL is not set, builds invitation links on the deployment's own origin
 * rather than on its default.
 */
import type { PrismaClient } from "@petstore/db";

const NAME = "publicBaseUrl";

/** Stores `origin` (an origin as packages/config normalises it) as the deployment's public origin. */
export async function recordPublicOrigin(prisma: PrismaClient, origin: string): Promise<void> {
  await prisma.deploymentSetting.upsert({
    where: { name: NAME },
    create: { name: NAME, value: origin },
    update: { value: origin },
  });
}

/** The public origin a server of the deployment recorded last; undefined when none has started yet. */
export async function recordedPublicOrigin(prisma: PrismaClient): Promise<string | undefined> {
  const row = await prisma.deploymentSetting.findUnique({ where: { name: NAME } });
  return row?.value;
}
