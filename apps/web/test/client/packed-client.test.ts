/**
 * `@petstore/client` as a consumer outside the repository gets it: `npm pack` of packages/client (its build, made
 * by the workspace build, checked to be the build of the current sources), the tarball installed into a temporary
 * project outside the workspace, the consumer's TypeScript (strict, exactOptionalPropertyTypes, declarations
 * checked: no skipLibCheck; TypeScript's own lib files are left unchecked) compiled under moduleResolution
 * nodenext (an ES module and a CommonJS file) and bundler, by the workspace's TypeScript and by TypeScript 5.9,
 * and the compiled scripts run in plain Node (`import` and `require`) against the production server. The
 * compilations run at once: each uses a tsconfig of its own.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startProductionServer,
  WEB_DIR,
} from "../instances/production-server.ts";
import { freePort } from "../support/common.ts";

const REPOSITORY = path.resolve(WEB_DIR, "../..");
const CLIENT_DIR = path.join(REPOSITORY, "packages/client");
/** The workspace's tsc (TypeScript 7) and the client's own (TypeScript 5.9, its devDependency: what builds it). */
const COMPILERS = {
  workspace: path.join(REPOSITORY, "node_modules/typescript/bin/tsc"),
  "5.9": path.join(
    path.dirname(createRequire(path.join(CLIENT_DIR, "package.json")).resolve("typescript/package.json")),
    "bin/tsc",
  ),
};

/**
 * The environment of the consumer's commands: nothing of the npm run or workspace that started vitest, but the
 * machine's certificate authorities (a registry behind a TLS-intercepting proxy is trusted through them).
 */
const consumerEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? os.homedir(),
  NODE_ENV: "production",
  ...Object.fromEntries(
    ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"].flatMap((name) => {
      const value = process.env[name];
      return value ? [[name, value]] : [];
    }),
  ),
  ...extra,
});

const run = async (command: string, args: string[], cwd: string, env = consumerEnv()) => {
  try {
    return await promisify(execFile)(command, args, { cwd, env, timeout: 300_000, maxBuffer: 16 << 20 });
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`,
    );
  }
};

/** What the consumer's scripts exercise: the operations (the store section's too), the replay flag and the typed errors. */
const ESM_SCRIPT = `import {
  createPetStoreClient,
  PetStoreError,
  type CreatedPet,
  type Inventory,
  type NewPet,
  type Order,
  type Pet,
  type PetStoreClientOptions,
} from "@petstore/client";

const configured: { timeoutMs?: number } = {};
const options: PetStoreClientOptions = {
  baseUrl: process.env.PETSTORE_BASE_URL ?? "",
  apiKey: process.env.PETSTORE_KEY ?? "",
  // Options a caller may not have: undefined is accepted under exactOptionalPropertyTypes.
  timeoutMs: configured.timeoutMs,
  retry: { maxAttempts: 2 },
};
const client = createPetStoreClient(options);
const categoryId = Number(process.env.CATEGORY_ID);
const newPet: NewPet = { name: process.env.PET_NAME ?? "", categoryId, status: "available" };

// @ts-expect-error categoryId is required: the types are the API's, not any.
const incomplete: NewPet = { name: "Rex" };
void incomplete;

const page = await client.listPets({ limit: 2 });
const first: CreatedPet = await client.createPet(newPet, { idempotencyKey: process.env.IDEMPOTENCY_KEY });
const again = await client.createPet(newPet, { idempotencyKey: process.env.IDEMPOTENCY_KEY });
const fetched: Pet = await client.getPet(first.pet.id);
const failure = await client.createPet({ name: " ", categoryId }).catch((error: unknown) => error);
const stranger = createPetStoreClient({ ...options, apiKey: "pet_test_notakey" });
const refused = await stranger.listPets().catch((error: unknown) => error);
const all: number[] = [];
for await (const pet of client.pets.all({ limit: 5 })) all.push(pet.id);
const changed = await client.pets.update(first.pet.id, { status: "available" }, { ifMatch: first.etag });
const placed = await client.orders.create({ petId: first.pet.id, holdMinutes: 5 });
const completed: Order = await client.orders.complete(placed.order.id);
const inventory: Inventory = await client.inventory();

const describeError = (error: unknown) =>
  error instanceof PetStoreError
    ? { instance: true, code: error.code, status: error.status, paths: error.details?.map((d) => d.path) ?? [] }
    : { instance: false, text: String(error) };

console.log(
  JSON.stringify({
    page: { size: page.pets.length, next: page.next !== undefined },
    first: { id: first.pet.id, name: first.pet.name, replayed: first.replayed },
    again: { id: again.pet.id, replayed: again.replayed },
    fetched: fetched.id,
    failure: describeError(failure),
    refused: describeError(refused),
    all: all.length,
    changed: [changed.pet.status, changed.etag === first.etag],
    order: [placed.order.status, completed.status, (await client.orders.list({ petId: first.pet.id })).orders.length],
    sold: inventory.sold > 0,
    rateLimit: client.rateLimit !== undefined,
  }),
);
`;

const CJS_SCRIPT = `import { createPetStoreClient, PetStoreError } from "@petstore/client";

const client = createPetStoreClient({
  baseUrl: process.env.PETSTORE_BASE_URL ?? "",
  apiKey: process.env.PETSTORE_KEY ?? "",
});
const newPet = { name: process.env.PET_NAME ?? "", categoryId: Number(process.env.CATEGORY_ID) };

async function main(): Promise<void> {
  const first = await client.createPet(newPet, { idempotencyKey: process.env.IDEMPOTENCY_KEY });
  const again = await client.createPet(newPet, { idempotencyKey: process.env.IDEMPOTENCY_KEY });
  const missing = await client.getPet(999_999_999).catch((error: unknown) => error);
  console.log(
    JSON.stringify({
      module: typeof module,
      replayed: [first.replayed, again.replayed],
      sameId: first.pet.id === again.pet.id,
      missing: missing instanceof PetStoreError ? missing.code : String(missing),
    }),
  );
}

void main();
`;

/** A page script of a browser tool (no Node types): compiled under moduleResolution bundler only. */
const BROWSER_SCRIPT = `import { createPetStoreClient, PetStoreError, type PetPage } from "@petstore/client";

export async function firstPage(apiKey: string, signal?: AbortSignal): Promise<PetPage | string> {
  const client = createPetStoreClient({ baseUrl: location.origin + "/v1", apiKey });
  try {
    return await client.listPets({ status: "available" }, { signal });
  } catch (error) {
    return error instanceof PetStoreError ? \`\${error.code} (\${error.requestId ?? "no id"})\` : "offline";
  }
}
`;

const STRICT = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  // TypeScript's own lib files (lib.dom.d.ts: most of a check's time) are not the package's declarations.
  skipDefaultLibCheck: true,
  target: "ES2022",
};

/** Every file under `dir`, as paths relative to it, sorted. */
const filesUnder = (dir: string): string[] =>
  (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();

describe("@petstore/client packed and installed outside the workspace", () => {
  let work: string;
  let project: string;
  let pack: { filename: string; files: { path: string }[] };
  let db: PreparedDatabase;
  let server: ProductionServer | undefined;
  let key: string;
  let categoryId: number;

  /** Starts the production server on a seeded database and issues the consumer's key. */
  async function startServer() {
    db = await prepareDatabase("petstore_packed_client");
    server = await startProductionServer(await freePort(), {
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: "https://api.test.example",
      // The client calls /v1 only: no dashboard process to start.
      PETSTORE_SERVE: "api",
    });
    key = (
      await db.rt.apiKeys.create(
        { name: "packed client", plan: "enterprise", perMinute: 10_000, perDay: 100_000 },
        "test",
      )
    ).key;
    categoryId = Number((await databaseOf(db.rt).prisma.category.findFirstOrThrow()).id);
  }

  /** Packs packages/client and installs the tarball into the consumer project. */
  async function packAndInstall() {
    // The workspace build (`npm run build`, before the tests) made dist/. Packing without the prepack script
    // packs that build instead of making it again, which would empty dist/ under the test files importing it.
    if (!fs.existsSync(path.join(CLIENT_DIR, "dist/index.js")))
      await run("npm", ["run", "-s", "build"], CLIENT_DIR, { ...consumerEnv(), NODE_ENV: "development" });
    const packed = await run(
      "npm",
      ["pack", "--json", "--ignore-scripts", "--pack-destination", work, "-w", "@petstore/client"],
      REPOSITORY,
    );
    const [result] = JSON.parse(packed.stdout) as (typeof pack)[];
    if (!result) throw new Error(`npm pack printed no result: ${packed.stdout}`);
    pack = result;

    project = path.join(work, "consumer");
    fs.mkdirSync(path.join(project, "src"), { recursive: true });
    const write = (file: string, content: string | object) =>
      fs.writeFileSync(
        path.join(project, file),
        typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`,
      );
    write("package.json", { name: "petstore-consumer", version: "0.0.0", private: true });
    write("src/main.mts", ESM_SCRIPT);
    write("src/main.cts", CJS_SCRIPT);
    write("src/browser.ts", BROWSER_SCRIPT);
    write(
      "src/broken.mts",
      ESM_SCRIPT.replace("// @ts-expect-error categoryId is required", "// (no directive)"),
    );
    const nodenext = {
      ...STRICT,
      module: "nodenext",
      moduleResolution: "nodenext",
      types: ["node"],
      rootDir: "src",
      outDir: "out",
    };
    write("tsconfig.json", { compilerOptions: nodenext, include: ["src/main.mts", "src/main.cts"] });
    write("tsconfig.broken.json", { compilerOptions: nodenext, include: ["src/broken.mts"] });
    write("tsconfig.bundler.json", {
      compilerOptions: {
        ...STRICT,
        module: "esnext",
        moduleResolution: "bundler",
        lib: ["ES2022", "DOM", "DOM.Iterable"],
        types: [],
        noEmit: true,
      },
      files: ["src/browser.ts"],
    });
    // From the npm cache when it holds the packages (CI installs the workspace first), else the registry.
    await run(
      "npm",
      [
        "install",
        path.join(work, pack.filename),
        "@types/node@20.19.43",
        "--prefer-offline",
        // A registry request that stalls is retried after 20 s rather than held for npm's default five minutes.
        "--fetch-timeout=20000",
        "--fetch-retries=4",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
      ],
      project,
    );
  }

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    work = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-packed-client-"));
    await Promise.all([startServer(), packAndInstall()]);
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("packs only the build, README, LICENSE and package.json", () => {
    const files = pack.files.map((f) => f.path).sort();
    expect(files).toContain("README.md");
    expect(files).toContain("LICENSE");
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    const others = files.filter(
      (f) => !["README.md", "LICENSE", "package.json"].includes(f) && !/^dist\/.+\.(js|d\.ts)$/.test(f),
    );
    expect(others).toEqual([]);
    // Every module has its declarations.
    const modules = files.filter((f) => f.endsWith(".js"));
    for (const m of modules) expect(files).toContain(m.replace(/\.js$/, ".d.ts"));

    const manifest = JSON.parse(
      fs.readFileSync(path.join(project, "node_modules/@petstore/client/package.json"), "utf8"),
    ) as {
      exports: Record<string, unknown>;
      dependencies: Record<string, string>;
      private?: boolean;
      scripts: Record<string, string>;
    };
    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", default: "./dist/index.js" });
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["http-link-header", "openapi-fetch"]);
    // Publishable to the consumer's own registry (`npm publish <tarball>`), naming nothing outside the package.
    expect(manifest.private).toBeUndefined();
    for (const script of Object.values(manifest.scripts)) expect(script).not.toContain("../");
  });

  it("packs the build of the current sources (what its prepack script builds)", async () => {
    const fresh = path.join(work, "fresh-build");
    // The workspace's compiler: it emits what the package's own TypeScript 5.9 does, several times faster.
    await run(
      process.execPath,
      [COMPILERS.workspace, "-p", "tsconfig.build.json", "--outDir", fresh],
      CLIENT_DIR,
    );
    const installed = path.join(project, "node_modules/@petstore/client/dist");
    expect(filesUnder(installed)).toEqual(filesUnder(fresh));
    for (const file of filesUnder(fresh))
      expect(fs.readFileSync(path.join(installed, file), "utf8"), file).toBe(
        fs.readFileSync(path.join(fresh, file), "utf8"),
      );
  });

  it.concurrent.each(Object.entries(COMPILERS))(
    "type-checks the consumer under nodenext and bundler with TypeScript %s",
    async (_version, tsc) => {
      await Promise.all([
        run(process.execPath, [tsc, "-p", "tsconfig.json", "--noEmit"], project),
        run(process.execPath, [tsc, "-p", "tsconfig.bundler.json"], project),
      ]);
    },
    300_000,
  );

  it.concurrent("reports a type error in the consumer (the check is real)", async ({ expect }) => {
    const result = await run(
      process.execPath,
      [COMPILERS.workspace, "-p", "tsconfig.broken.json", "--noEmit"],
      project,
    ).catch((error: Error) => error);
    expect(result).toBeInstanceOf(Error);
    expect(String(result)).toMatch(/broken\.mts.*categoryId/s);
  });

  it.concurrent("runs the compiled consumer in plain Node, as an ES module and through require(), against the production build", async ({
    expect,
  }) => {
    await run(process.execPath, [COMPILERS.workspace, "-p", "tsconfig.json"], project);
    const env = (name: string, idempotencyKey: string) =>
      consumerEnv({
        PETSTORE_BASE_URL: `${server?.baseUrl}/v1`,
        PETSTORE_KEY: key,
        CATEGORY_ID: String(categoryId),
        PET_NAME: name,
        IDEMPOTENCY_KEY: idempotencyKey,
      });

    const esm = await run(process.execPath, ["out/main.mjs"], project, env("Packed ESM", "packed-esm-1"));
    expect(esm.stderr).toBe("");
    const result = JSON.parse(esm.stdout);
    expect(result).toEqual({
      page: { size: 2, next: true },
      first: { id: expect.any(Number), name: "Packed ESM", replayed: false },
      again: { id: result.first.id, replayed: true },
      fetched: result.first.id,
      failure: { instance: true, code: "validation_failed", status: 400, paths: ["name"] },
      refused: { instance: true, code: "unauthorized", status: 401, paths: [] },
      all: await databaseOf(db.rt).prisma.pet.count(),
      changed: ["available", true],
      order: ["placed", "completed", 1],
      sold: true,
      rateLimit: true,
    });

    const cjs = await run(process.execPath, ["out/main.cjs"], project, env("Packed CJS", "packed-cjs-1"));
    expect(cjs.stderr).toBe("");
    expect(JSON.parse(cjs.stdout)).toEqual({
      module: "object",
      replayed: [false, true],
      sameId: true,
      missing: "not_found",
    });

    const created = await databaseOf(db.rt).prisma.pet.findMany({
      where: { name: { in: ["Packed ESM", "Packed CJS"] } },
    });
    expect(created.map((p) => p.name).sort()).toEqual(["Packed CJS", "Packed ESM"]);
  });
});
