// The contract check of every HTTP test: an answer the app gives must be one its own OpenAPI document describes
// (status, media type, JSON body, required headers).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
type Header = { required?: boolean; schema?: Json; $ref?: string };
type Response = { content?: Record<string, { schema?: Json }>; headers?: Record<string, Header>; $ref?: string };
type Operation = { operationId?: string; responses?: Record<string, Response> };
export type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, Record<string, unknown>>;
};

/** What the checker needs of an answer (light-my-request's response has all of it). */
export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Buffer;
}

// ajv-formats is CommonJS with a default export; under NodeNext its callable sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  /** Literal segments first: `/codes/{id}` must not shadow a literal path of the same length. */
  params: number;
}

export class ResponseValidator {
  readonly #document: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #routes: Route[];
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    this.#document = document;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: true });
    addFormats(this.#ajv);
    this.#ajv.addFormat('binary', true);
    this.#ajv.addSchema(document as object, 'openapi');
    this.#routes = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.keys(item)
        .filter((method) => METHODS.has(method))
        .map((method) => ({
          method,
          template,
          params: (template.match(/\{/g) ?? []).length,
          pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        })),
    );
    this.#routes.sort((a, b) => a.params - b.params);
  }

  /**
   * The ways the answer departs from the document; empty when it matches, or when the request is not an operation of
   * the document (the portal, /metrics, /docs, an unknown path or method): those are not part of the API contract.
   */
  check(
    method: string,
    url: string,
    answer: Answer,
    isLiteralRoute: (method: string, path: string) => boolean = () => false,
  ): string[] {
    const path = url.split('?')[0]!.split('#')[0]!; // matched as sent: template segments take any encoded value
    const route = this.#routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(path));
    if (!route) return [];
    // A path the app routes literally (/openapi.json, /portal) was not answered by a template such as /{slug}, even
    // though the template matches it.
    if (route.params > 0 && isLiteralRoute(method, path)) return [];
    const operation = this.#document.paths[route.template]![route.method]!;
    const where =
      `${method.toUpperCase()} ${route.template} (${operation.operationId ?? 'no operationId'}) answered ` +
      `${answer.statusCode}`;
    const status = String(answer.statusCode);
    const responses = operation.responses ?? {};
    const key =
      status in responses
        ? status
        : `${status[0]}XX` in responses
          ? `${status[0]}XX`
          : 'default' in responses
            ? 'default'
            : undefined;
    if (key === undefined)
      return [`${where}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
    const response = this.#resolve<Response>(responses[key]!);
    const pointer = `openapi#/paths/${escapePointer(route.template)}/${route.method}/responses/${key}`;
    return [...this.#checkHeaders(where, response, answer), ...this.#checkBody(where, response, answer, pointer)];
  }

  #resolve<T extends { $ref?: string }>(value: T): T {
    if (!value.$ref) return value;
    const [, , kind, name] = value.$ref.split('/');
    return this.#document.components?.[kind!]?.[name!] as T;
  }

  #checkHeaders(where: string, response: Response, answer: Answer): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const header = this.#resolve(declared);
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      if (header.schema) {
        const text = Array.isArray(value) ? value.join(', ') : String(value);
        const validate = this.#headerValidator(header.schema);
        if (!validate(text))
          problems.push(`${where}: header ${name}: ${JSON.stringify(text)} ${this.#ajv.errorsText(validate.errors)}`);
      }
    }
    return problems;
  }

  #headerValidator(schema: Json): ValidateFunction {
    const key = `header:${JSON.stringify(schema)}`;
    let validate = this.#compiled.get(key);
    if (!validate) {
      validate = this.#ajv.compile(schema);
      this.#compiled.set(key, validate);
    }
    return validate;
  }

  #checkBody(where: string, response: Response, answer: Answer, pointer: string): string[] {
    const contentType = answer.headers['content-type'];
    const mediaType = typeof contentType === 'string' ? contentType.split(';')[0]!.trim().toLowerCase() : undefined;
    const content = response.content;
    if (!content) {
      return answer.rawPayload.length === 0
        ? []
        : [
            `${where}: documents no body, but sent ${answer.rawPayload.length} bytes (` +
              `${mediaType ?? 'no Content-Type'})`,
          ];
    }
    if (answer.rawPayload.length === 0 && mediaType === undefined)
      return [`${where}: documents a body (${Object.keys(content).join(', ')}), but sent none`];
    if (mediaType === undefined || !(mediaType in content)) {
      return [
        `${where}: media type ${mediaType ?? '(none)'} is not documented (documented: ` +
          `${Object.keys(content).join(', ')})`,
      ];
    }
    if (!/^application\/(.+\+)?json$/.test(mediaType) || !content[mediaType]!.schema) return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.rawPayload.toString('utf8'));
    } catch {
      return [`${where}: the ${mediaType} body is not JSON`];
    }
    const id = `${pointer}/content/${escapePointer(mediaType)}/schema`;
    let validate = this.#compiled.get(id);
    if (!validate) {
      validate = this.#ajv.getSchema(id);
      if (!validate) return [`${where}: cannot compile the schema at ${id}`];
      this.#compiled.set(id, validate);
    }
    return validate(body)
      ? []
      : [`${where}: the body does not match the schema: ${this.#ajv.errorsText(validate.errors, { dataVar: 'body' })}`];
  }
}

/** One validator per distinct document (suites build many apps from the same routes). */
const validators = new Map<string, ResponseValidator>();

export function responseValidatorFor(document: OpenApiDocument): ResponseValidator {
  const text = JSON.stringify(document);
  let validator = validators.get(text);
  if (!validator) {
    validator = new ResponseValidator(document);
    validators.set(text, validator);
  }
  return validator;
}
