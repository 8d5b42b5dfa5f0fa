export * from "./errors.ts";
export * from "./pets.ts";
