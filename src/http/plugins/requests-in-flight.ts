// Counts the API requests in flight: while there are any, in-process batch rendering steps back to one lane.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export class RequestsInFlight {
  #count = 0;

  enter(): void {
    this.#count++;
  }

  leave(): void {
    this.#count = Math.max(0, this.#count - 1);
  }

  busy(): boolean {
    return this.#count > 0;
  }
}

async function requestsInFlight(app: FastifyInstance, options: { counter: RequestsInFlight }): Promise<void> {
  app.addHook('onRequest', (_request, _reply, done) => {
    options.counter.enter();
    done();
  });
  app.addHook('onResponse', (_request, _reply, done) => {
    options.counter.leave();
    done();
  });
}

/** Registered in the API context: only synchronous API requests count, not the portal's pages. */
export default fp(requestsInFlight, { name: 'requests-in-flight' });
