// Finishes the generated OpenAPI document: problem+json where JSON was assumed, each route's `x-document` (non-JSON
// bodies, headers), common headers, no unused components.
import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { HeaderDoc, OperationDoc, ResponseDoc } from './operation-doc.js';

type Response = Omit<ResponseDoc, 'headers'> & {
  content?: Record<string, unknown>;
  headers?: Record<string, HeaderDoc | { $ref: string }>;
};
type Operation = {
  operationId?: string;
  requestBody?: { required?: boolean; description?: string; content: Record<string, unknown> };
  responses?: Record<string, Response>;
  'x-document'?: OperationDoc;
};
type OpenApiDocument = {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; headers?: Record<string, unknown>; [key: string]: unknown };
  [key: string]: unknown;
};

/** Headers every answer of a status carries, whatever the route: shared as components. */
const COMMON_HEADERS: Record<string, HeaderDoc> = {
  'X-Request-Id': {
    description:
      'The request id (yours when you sent a safe X-Request-Id, else ours); quote it when reporting a problem.',
    required: true,
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
};

function headersFor(status: string): Record<string, { $ref: string }> {
  const names = ['X-Request-Id', ...(status === '429' || status === '503' ? ['Retry-After'] : [])];
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** The router refuses a path segment that is malformed or too long before any route runs: 400 invalid_request. */
const ROUTER_REFUSAL: Response = {
  description: 'Problem: `invalid_request` (a path segment that is malformed or too long).',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};

/**
 * What any route that takes a body may answer before its body is read (body-guard): too slow, or too many uploads at
 * once.
 */
const BODY_REFUSALS: Record<string, { code: string; why: string }> = {
  '408': { code: 'request_timeout', why: 'the body arrived slower than the server takes' },
  '429': { code: 'too_many_uploads', why: 'too many uploads in flight from this caller or address' },
};

function addBodyRefusals(responses: Record<string, Response>): void {
  for (const [status, { code, why }] of Object.entries(BODY_REFUSALS)) {
    const existing = responses[status];
    if (existing) existing.description = `${existing.description}, \`${code}\` (${why})`;
    else
      responses[status] = {
        description: `Problem: \`${code}\` (${why}).`,
        content: structuredClone(ROUTER_REFUSAL.content),
      };
  }
}

function applyOperationDoc(path: string, operation: Operation): void {
  const doc = operation['x-document'];
  delete operation['x-document'];
  const responses = (operation.responses ??= {});
  // fastify-swagger's placeholder when a route declares no response schema at all
  if (doc?.responses && responses['200']?.description === 'Default Response' && !responses['200'].content)
    delete responses['200'];
  for (const [status, response] of Object.entries(doc?.responses ?? {})) responses[status] = structuredClone(response);
  for (const [status, headers] of Object.entries(doc?.headers ?? {})) {
    const response = responses[status];
    if (!response) throw new Error(`x-document of ${operation.operationId}: headers for undocumented status ${status}`);
    response.headers = { ...response.headers, ...headers };
  }
  if (doc?.requestBody) {
    const generated = operation.requestBody;
    operation.requestBody = {
      required: doc.requestBody.required ?? true,
      ...(doc.requestBody.description ? { description: doc.requestBody.description } : {}),
      content: { ...generated?.content, ...doc.requestBody.content },
    };
  }
  if (path.includes('{') && !responses['400']) responses['400'] = structuredClone(ROUTER_REFUSAL);
  if (operation.requestBody) addBodyRefusals(responses);
  for (const [status, response] of Object.entries(responses)) {
    const json = response.content?.['application/json'];
    if (Number(status) >= 400 && json) response.content = { 'application/problem+json': json };
    response.headers = { ...headersFor(status), ...response.headers };
  }
}

/** Every `#/components/<kind>/<name>` the document refers to, followed through the components themselves. */
function usedComponents(document: OpenApiDocument): Set<string> {
  const used = new Set<string>();
  const components = document.components ?? {};
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/') && !used.has(child)) {
        used.add(child);
        const [, , kind, name] = child.split('/');
        visit((components[kind!] as Record<string, unknown> | undefined)?.[name!]);
      } else visit(child);
    }
  };
  visit(document.paths);
  return used;
}

export function finishDocument(
  input: Parameters<typeof jsonSchemaTransformObject>[0],
): ReturnType<typeof jsonSchemaTransformObject> {
  const document = jsonSchemaTransformObject(input) as OpenApiDocument;
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(operations)) applyOperationDoc(path, operation);
  }
  document.components = { ...document.components, headers: { ...document.components?.headers, ...COMMON_HEADERS } };
  // zod's registry yields an input and an output schema for every named schema; only those something refers to are
  // kept.
  const used = usedComponents(document);
  const keep = (kind: 'schemas' | 'headers') =>
    Object.fromEntries(
      Object.entries(document.components?.[kind] ?? {}).filter(([name]) => used.has(`#/components/${kind}/${name}`)),
    );
  document.components = { ...document.components, schemas: keep('schemas'), headers: keep('headers') };
  return document as ReturnType<typeof jsonSchemaTransformObject>;
}
