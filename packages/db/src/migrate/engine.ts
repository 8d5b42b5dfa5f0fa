/**
 * Loads Prisma's WebAssembly schema engine (@prisma/schema-engine-wasm). Prisma 7's CLI only drives the
 * native engine, which cannot be downloaded here, so this module instantiates the WASM build itself.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import {
  bindMigrationAwareSqlAdapterFactory,
  type ErrorRegistry,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import * as bg from "@prisma/schema-engine-wasm/schema_engine_bg";

export type SchemaEngine = bg.SchemaEngine;
export type { MigrationList, SchemaFilter } from "@prisma/schema-engine-wasm/schema_engine_bg";

/** No externally managed tables or enums: the engine owns the whole `public` schema. */
export const NO_FILTERS: bg.SchemaFilter = { externalTables: [], externalEnums: [] };

let initialised: Promise<void> | undefined;

/**
 * Instantiates the WASM module once per process (later calls reuse it).
 * @throws when the .wasm file is missing or fails to compile.
 */
export function loadSchemaEngineWasm(): Promise<void> {
  initialised ??= (async () => {
    const require = createRequire(import.meta.url);
    const jsPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bytes = await fs.promises.readFile(path.join(path.dirname(jsPath), "schema_engine_bg.wasm"));
    const module = await WebAssembly.compile(bytes);
    const instance = new WebAssembly.Instance(module, {
      "./schema_engine_bg.js": bg as WebAssembly.ModuleImports,
    });
    const exports = instance.exports as WebAssembly.Exports & { __wbindgen_start(): void };
    bg.__wbg_set_wasm(exports);
    exports.__wbindgen_start();
  })();
  return initialised;
}

/** A schema engine plus the registry holding the JavaScript errors its adapter calls raised. */
export interface EngineHandle {
  engine: SchemaEngine;
  /** The engine reports a JS error thrown by the adapter as "External error id#N"; this maps N back. */
  errorRegistry: ErrorRegistry;
}

/**
 * Creates a schema engine for the Prisma schema file at `schemaPath`, talking to the database through
 * `factory` (it connects at once; `connectToShadowDb` is used for diffs). `log` receives the engine's
 * JSON log lines. The caller must `engine.free()`.
 * @throws when the schema does not parse or the database cannot be reached (an engine `Error`).
 */
export async function createSchemaEngine(
  schemaPath: string,
  factory: SqlMigrationAwareDriverAdapterFactory,
  log: (line: string) => void = () => {},
): Promise<EngineHandle> {
  await loadSchemaEngineWasm();
  const text = await fs.promises.readFile(schemaPath, "utf8");
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  try {
    const engine = await bg.SchemaEngine.new({ datamodels: [[schemaPath, text]] }, log, bound);
    return { engine, errorRegistry: bound.errorRegistry };
  } catch (error) {
    throw new Error(engineErrorMessage(error, bound.errorRegistry), { cause: error });
  }
}

/**
 * A readable message for an engine rejection: the Rust span trace is cut off, and "External error id#N"
 * is replaced by the message of the JavaScript error the adapter raised.
 */
export function engineErrorMessage(error: unknown, errorRegistry?: ErrorRegistry): string {
  const raw = error instanceof Error ? error.message : String(error);
  const message = raw.split(/\n\s+0: /)[0]?.trim() ?? raw;
  return message.replace(/External error id#(\d+)/g, (text, id: string) => {
    const record = errorRegistry?.consumeError(Number(id));
    if (!record) return text;
    return record.error instanceof Error ? record.error.message : String(record.error);
  });
}
