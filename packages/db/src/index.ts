export * from "./client.ts";
export * from "./generated/prisma/client.ts";
export * from "./seed.ts";
export * from "./seed-scale.ts";
export * from "./tracing.ts";
