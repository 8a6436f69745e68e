// A custom domain of one account, named the way the API accepts it: by its id (`dom_…`) or by its hostname.
import { DOMAIN_ID, normalisedHostname, type CustomDomain } from '../domain/custom-domain.js';
import type { CustomDomainStore } from '../domain/ports/custom-domain-store.js';

export type DomainLookup = Pick<CustomDomainStore, 'get' | 'findByHostname'>;

/** Undefined for a name that is no domain of this account (another account's hostname answers the same). */
export async function accountDomain(
  domains: DomainLookup,
  accountId: string,
  name: string,
): Promise<CustomDomain | undefined> {
  if (DOMAIN_ID.test(name)) return domains.get(accountId, name);
  const normalised = normalisedHostname(name);
  if ('problem' in normalised) return undefined;
  const found = await domains.findByHostname(normalised.hostname);
  return found?.accountId === accountId ? found : undefined;
}
