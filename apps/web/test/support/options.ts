/**
 * The one reader of the command line and environment for the benches and the test suites' own parameters: each
 * option from `--name=<value>` on the command line, else the environment variable beside it, else the schema's
 * default, validated with zod.
 */
import { z } from "zod";

/** An on/off option: on for `1` or `true`. */
export const flag = z
  .enum(["", "0", "1", "false", "true"])
  .default("")
  .transform((v) => v === "1" || v === "true");

/** Where an option comes from: `--<arg>=<value>` (a flag: `--<arg>`) on the command line, else the variable `env`. */
export interface OptionSource {
  arg?: string;
  env?: string;
  flag?: true;
}

/**
 * Reads `sources` (option name -> where it is given) and parses them with `schema`: the one place the benches
 * read their command line and environment.
 * @throws ZodError naming the bad option.
 */
export function readOptions<S extends z.ZodObject>(
  schema: S,
  sources: Record<keyof z.input<S>, OptionSource>,
): z.output<S> {
  const raw: Record<string, string | undefined> = {};
  for (const [name, { arg, env, flag }] of Object.entries(sources) as [string, OptionSource][]) {
    const given = arg
      ? flag
        ? process.argv.includes(`--${arg}`)
          ? "1"
          : undefined
        : process.argv.find((a) => a.startsWith(`--${arg}=`))?.slice(arg.length + 3)
      : undefined;
    raw[name] = given ?? (env ? process.env[env] || undefined : undefined);
  }
  return schema.parse(raw);
}
