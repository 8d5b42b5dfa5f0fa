/**
 * Checks real responses against the served OpenAPI 3.1 document (ajv, JSON Schema 2020-12), so that the
 * document and the behaviour cannot drift apart: the status must be documented for the operation, the body
 * must match its schema, and every documented header must be present when required and well-formed.
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;

const escapePointer = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

export class OpenApiResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly operations = new Map<string, { path: string; method: string; op: Json }>();

  constructor(private readonly doc: Json) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc, "openapi.json");
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item)) {
        const id = (op as Json).operationId;
        if (typeof id === "string") this.operations.set(id, { path, method, op: op as Json });
      }
    }
  }

  static async fetch(baseUrl: string): Promise<OpenApiResponseValidator> {
    const response = await fetch(`${baseUrl}/v1/openapi.json`);
    return new OpenApiResponseValidator((await response.json()) as Json);
  }

  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== "string") return value;
    let node: unknown = this.doc;
    for (const part of ref.replace(/^#\//, "").split("/")) {
      node = (node as Json | undefined)?.[part.replaceAll("~1", "/").replaceAll("~0", "~")];
    }
    return node as Json;
  }

  /** Problems with `response` (already read `body`) as an answer of `operationId`; empty when it conforms. */
  check(operationId: string, response: Response, body: string): string[] {
    const entry = this.operations.get(operationId);
    if (!entry) return [`unknown operation ${operationId}`];
    const responses = entry.op.responses as Record<string, Json>;
    if (!responses[String(response.status)])
      return [`status ${response.status} is not documented for ${operationId}`];
    return this.checkAgainst(
      `#/paths/${escapePointer(entry.path)}/${entry.method}/responses/${response.status}`,
      response,
      body,
    );
  }

  /**
   * Problems with `response` as the Response Object at `pointer` (a JSON pointer into the document, e.g.
   * `#/components/responses/MethodNotAllowed`, for answers no operation declares); empty when it conforms.
   */
  checkAgainst(pointer: string, response: Response, body: string): string[] {
    const declared = this.resolve({ $ref: pointer });
    if (!declared) return [`no response at ${pointer}`];
    const problems: string[] = [];
    const contentType = response.headers.get("content-type") ?? "";
    const content = declared.content as Record<string, Json> | undefined;
    if (content) {
      const media = Object.keys(content).find((m) => contentType.startsWith(m));
      if (!media) problems.push(`content type ${contentType} not documented`);
      else {
        const schema = `openapi.json${pointer}/content/${escapePointer(media)}/schema`;
        const validate = this.ajv.getSchema(schema) ?? this.ajv.compile({ $ref: schema });
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          problems.push("body is not JSON");
        }
        if (parsed !== undefined && !validate(parsed))
          problems.push(`body: ${this.ajv.errorsText(validate.errors)}`);
      }
    }
    for (const [name, raw] of Object.entries((declared.headers ?? {}) as Record<string, Json>)) {
      const header = this.resolve(raw);
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`missing required header ${name}`);
        continue;
      }
      const schema = header.schema as Json;
      const typed = schema.type === "integer" && /^-?[0-9]+$/.test(value) ? Number(value) : value;
      if (!this.ajv.validate(schema, typed))
        problems.push(`header ${name}=${value}: ${this.ajv.errorsText()}`);
    }
    return problems;
  }
}
