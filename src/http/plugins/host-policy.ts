// Hosts keep to their owners: on a Host that is not this service's own, only a custom domain's routes and the probes
// answer (404 otherwise).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceHosts } from '../service-hosts.js';

/**
 * What may answer on a custom domain's Host: its scans (by vanity slug or `/r/`, each checked against the domain's
 * owner), its well-known answer, the probes.
 */
const ON_ANY_HOST = new Set([
  '/:slug',
  '/r/:slug',
  '/.well-known/qrm-domain/:token',
  '/healthz',
  '/readyz',
  '/metrics',
]);

async function hostPolicy(app: FastifyInstance, options: { hosts: ServiceHosts }): Promise<void> {
  // onRequest: before any body is read, any session looked up or any key checked.
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (options.hosts.foreignHost(request.host) === undefined || (route !== undefined && ON_ANY_HOST.has(route)))
      return done();
    // Answered here: the hooks after this one and the handler do not run.
    reply.callNotFound();
  });
}

export default fp(hostPolicy, { name: 'host-policy' });
