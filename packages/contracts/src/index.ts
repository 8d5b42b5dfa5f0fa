export * from "./admin.ts";
export * from "./dashboard.ts";
export * from "./defaults.ts";
export * from "./errors.ts";
export * from "./limits.ts";
export * from "./pets.ts";
export * from "./text.ts";
export * from "./users.ts";
