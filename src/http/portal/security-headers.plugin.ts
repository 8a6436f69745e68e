// Security headers for portal pages (helmet): a CSP that allows only this origin's own scripts, styles and images.
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface SecurityHeadersOptions {
  /** PUBLIC_URL is https: HSTS and upgrade-insecure-requests make sense only then. */
  secure: boolean;
  /** Other origins a form's answer may redirect to (Stripe Checkout and the customer portal, when configured). */
  formRedirectOrigins?: readonly string[];
}

async function securityHeaders(app: FastifyInstance, options: SecurityHeadersOptions): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"], // no inline scripts anywhere: JS is one static file
        styleSrc: ["'self'"], // no inline styles either: bars are <meter> elements
        imgSrc: ["'self'", 'data:'], // the playground shows its image as a data: URI
        connectSrc: ["'self'"],
        // Browsers check form-action on the redirect too: Upgrade and Manage billing answer 303 to Stripe's pages.
        formAction: ["'self'", ...(options.formRedirectOrigins ?? [])],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
        ...(options.secure ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    hsts: options.secure ? { maxAge: 180 * 24 * 60 * 60 } : false,
    referrerPolicy: { policy: 'same-origin' },
  });
}

export default fp(securityHeaders, { name: 'portal-security-headers' });
