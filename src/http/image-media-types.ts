// The Content-Type each output format is answered with: the HTTP layer's own table (the services deal in formats, not
// media types).
import type { OutputFormat } from '../domain/plan-catalogue.js';

export const IMAGE_MEDIA_TYPES: Record<OutputFormat, string> = {
  png: 'image/png',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  eps: 'application/postscript',
};
