export * from "./admin.ts";
export * from "./errors.ts";
export * from "./pets.ts";
