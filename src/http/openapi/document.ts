// Finishes the generated OpenAPI document: problem+json and image media types where JSON was assumed.
import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';

type OpenApiDocument = {
  paths?: Record<string, Record<string, { operationId?: string; responses?: Record<string, { description?: string; content?: Record<string, unknown> }> }>>;
  [key: string]: unknown;
};

/** Binary responses by operationId: fastify's JSON response schemas cannot express them, so they are declared here. */
export const BINARY_RESPONSES: Record<string, { status: string; description: string; mediaTypes: string[] }> = {
  generateQr: {
    status: '200',
    description: 'The QR code image, unwrapped, in the requested format. Headers: ETag, X-Request-Id and the quota headers.',
    mediaTypes: ['image/png', 'image/webp', 'image/svg+xml'],
  },
};

export function finishDocument(input: Parameters<typeof jsonSchemaTransformObject>[0]): ReturnType<typeof jsonSchemaTransformObject> {
  const document = jsonSchemaTransformObject(input) as OpenApiDocument;
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.['application/json'];
        if (Number(status) >= 400 && json) response.content = { 'application/problem+json': json };
      }
      const binary = operation.operationId ? BINARY_RESPONSES[operation.operationId] : undefined;
      if (binary && operation.responses) {
        operation.responses[binary.status] = {
          description: binary.description,
          content: Object.fromEntries(binary.mediaTypes.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
        };
      }
    }
  }
  return document as ReturnType<typeof jsonSchemaTransformObject>;
}
