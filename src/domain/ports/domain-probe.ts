// Port: the outbound check that a custom domain's hostname reaches this service (its verification URL answers the
// token).

/**
 * `check` fetches `http://<hostname>/.well-known/qrm-domain/<token>` under the webhook address rules (no private or
 * loopback address unless the operator allows them) and answers null when the body is exactly the token, else why not
 * (in words for the domain's owner). It never throws for the target's failures (refused address, timeout, status).
 */
export interface DomainProbe {
  check(hostname: string, token: string): Promise<string | null>;
}
