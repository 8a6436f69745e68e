// The OpenAPI description of a scan's answers and of the password form, shared by /r/{slug} and a custom domain's
// /{slug}.
import { PASSWORD_LENGTH } from '../../domain/password-hash.js';
import type { ResponseDoc } from '../openapi/operation-doc.js';

const NO_STORE = {
  'Cache-Control': {
    description: '`no-store`: every scan reaches the service.',
    required: true,
    schema: { const: 'no-store' },
  },
};
export const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };
const page = (description: string): ResponseDoc => ({ description, content: HTML_PAGE, headers: NO_STORE });

/** What a scan of a code can answer (the scan answer's statuses), shared by the GET and the password form's POST. */
export const SCAN_RESPONSES: Record<string, ResponseDoc> = {
  '302': {
    description:
      "To the target the code's rules choose (else its `target`, or `expiredTarget` once expired), with the " +
      'UTM tags and the forwarded query added.',
    headers: {
      Location: { description: 'The target.', required: true, schema: { type: 'string', format: 'uri' } },
      ...NO_STORE,
    },
  },
  '401': page(
    'The code is password protected: a small HTML form posting the password to this same address. Nothing of ' +
      'the target is shown.',
  ),
  '404': page('Unknown code: a small HTML page.'),
  '410': page(
    'Paused, deleted or disabled code, or one past `expiresAt` / `maxScans` without an `expiredTarget`: a ' +
      'small HTML page.',
  ),
};

/**
 * The password form's request body and answers: the scan's, plus the refusals of a body the form cannot be read from.
 */
export function unlockFormDocument(scanResponses: Record<string, ResponseDoc>) {
  return {
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['password'],
            properties: { password: { type: 'string', maxLength: PASSWORD_LENGTH.max } },
          },
        },
      },
    },
    responses: {
      ...scanResponses,
      '400': {
        description:
          'A body that cannot be read (malformed JSON or form): a small HTML page; a URL the router refuses ' +
          '(too long, bad percent-encoding): a problem document.',
        content: { ...HTML_PAGE, 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
      '413': page('A body over 2 KiB: a small HTML page.'),
      '415': page('A body in a media type other than the form (or JSON, or plain text): a small HTML page.'),
      '429': {
        description: 'Too many wrong passwords for this code from this address: a small HTML page.',
        content: HTML_PAGE,
        headers: {
          ...NO_STORE,
          'Retry-After': {
            description: 'Seconds until the window ends.',
            required: true,
            schema: { type: 'string', pattern: '^[0-9]+$' },
          },
        },
      },
    },
  };
}
