// Use cases for custom domains: add one within the plan, list, read, delete when no code uses it, verify it (on demand
// or by an operator).
import {
  DOMAIN_ID,
  newDomainId,
  newVerificationToken,
  normalisedHostname,
  proofName,
  TOKEN_PATTERN,
  type CustomDomain,
  type Vanity,
  VANITY_SLUG_PATTERN,
} from '../domain/custom-domain.js';
import { ApiError, invalidField } from '../domain/errors.js';
import type { PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { CustomDomainStore } from '../domain/ports/custom-domain-store.js';
import type { DomainProbe } from '../domain/ports/domain-probe.js';
import { accountDomain, type DomainLookup } from './account-domain.js';
import type { DynamicCodeStore } from '../domain/ports/dynamic-code-store.js';
import { DnsUnavailable, type TxtLookup } from '../domain/ports/txt-lookup.js';
import { proveDomain } from './domain-proof.js';

export interface CustomDomainDeps {
  domains: CustomDomainStore;
  codes: Pick<DynamicCodeStore, 'countOnDomain'>;
  plans: PlanCatalogue;
  clock: () => Date;
  /** Hostnames of this service itself (PUBLIC_URL's): never registrable as a custom domain. */
  ownHostnames: readonly string[];
  /** The TXT records that prove a claim (and keep a deleted one's hostname until its record is gone). */
  dns: TxtLookup;
}

interface Owner {
  accountId: string;
  plan: PlanId;
}

function notFound(): ApiError {
  // Another tenant's domain answers exactly like a missing one.
  return new ApiError('not_found', 'no custom domain with this id on your account');
}

export async function addDomain(
  deps: CustomDomainDeps,
  owner: Owner,
  input: { hostname: string },
): Promise<CustomDomain> {
  const plan = deps.plans.get(owner.plan);
  if (plan.customDomains === 0) {
    throw new ApiError('plan_upgrade_required', `custom domains are not included in the ${plan.name} plan`, {
      extensions: { plan: plan.id },
    });
  }
  const normalised = normalisedHostname(input.hostname);
  if ('problem' in normalised) throw invalidField('hostname', normalised.problem);
  const { hostname } = normalised;
  if (deps.ownHostnames.includes(hostname)) throw invalidField('hostname', "is this service's own hostname");
  // A claim never proved in time frees its hostname for whoever adds it next.
  await deps.domains.releaseExpired(hostname);
  if (!(await deps.domains.findByHostname(hostname))) await refuseWhileProvedForAnother(deps.dns, hostname);
  const created = await deps.domains.createWithinLimit(
    { id: newDomainId(), accountId: owner.accountId, hostname, token: newVerificationToken(), createdAt: deps.clock() },
    plan.customDomains,
  );
  if (created === 'hostname_taken') throw new ApiError('hostname_taken', `${hostname} is already registered`);
  if (created === 'limit_reached') {
    throw new ApiError(
      'domain_limit_reached',
      `the ${plan.name} plan allows ${plan.customDomains} custom domains; delete one to add another`,
      {
        extensions: { limit: plan.customDomains },
      },
    );
  }
  return created;
}

/**
 * A new claim gets a new token, so a token already at `_qrm-challenge.<hostname>` proves an earlier claim (a deleted
 * domain's): the hostname stays out of reach until its DNS owner removes that record.
 */
async function refuseWhileProvedForAnother(dns: TxtLookup, hostname: string): Promise<void> {
  let values: string[];
  try {
    values = await dns.txt(proofName(hostname));
  } catch (error) {
    if (error instanceof DnsUnavailable)
      throw new ApiError('unavailable', `DNS did not answer for ${proofName(hostname)}; try again shortly`);
    throw error;
  }
  if (values.some((value) => TOKEN_PATTERN.test(value.trim()))) {
    throw new ApiError(
      'hostname_taken',
      `${hostname} is still proved for an earlier claim: remove the TXT record ${proofName(hostname)} first`,
    );
  }
}

export function listDomains(deps: Pick<CustomDomainDeps, 'domains'>, accountId: string): Promise<CustomDomain[]> {
  return deps.domains.list(accountId);
}

export async function getDomain(
  deps: Pick<CustomDomainDeps, 'domains'>,
  accountId: string,
  id: string,
): Promise<CustomDomain> {
  const domain = DOMAIN_ID.test(id) ? await deps.domains.get(accountId, id) : undefined;
  if (!domain) throw notFound();
  return domain;
}

/**
 * Refused (409 domain_in_use) while a code that is not deleted lives on it: its printed short URLs would stop working.
 */
export async function deleteDomain(deps: CustomDomainDeps, accountId: string, id: string): Promise<void> {
  const domain = await getDomain(deps, accountId, id);
  const codes = await deps.codes.countOnDomain(domain.id);
  if (codes > 0) {
    throw new ApiError('domain_in_use', `${codes} code(s) use ${domain.hostname}; move or delete them first`, {
      extensions: { codes },
    });
  }
  if (!(await deps.domains.remove(accountId, id))) throw notFound();
}

/** On demand (POST …/domains/{id}/verify): proves it now (DNS) and answers the domain as it then is. */
export async function verifyDomain(
  deps: Pick<CustomDomainDeps, 'domains' | 'clock' | 'dns'>,
  probe: DomainProbe,
  accountId: string,
  id: string,
): Promise<CustomDomain> {
  return proveDomain({ ...deps, probe }, await getDomain(deps, accountId, id));
}

/**
 * Operators (`qrm domains verify`): the operator vouches for the hostname now; no check is made. The daily re-check
 * still
 * applies: without its TXT record the domain is suspended a day later.
 */
export async function activateByHostname(
  deps: Pick<CustomDomainDeps, 'domains' | 'clock'>,
  hostname: string,
): Promise<CustomDomain> {
  const normalised = normalisedHostname(hostname);
  if ('problem' in normalised) throw invalidField('hostname', normalised.problem);
  const domain = await deps.domains.findByHostname(normalised.hostname);
  if (!domain) throw new ApiError('not_found', `no custom domain ${normalised.hostname}`);
  const at = deps.clock();
  const active = (await deps.domains.activate(domain.id, at)) ?? domain;
  await deps.domains.noteCheck(domain.id, at, null);
  return { ...active, lastCheck: { at, problem: null } };
}

/**
 * What `/.well-known/qrm-domain/<token>` answers on a Host: the token, for a domain not active of that hostname with
 * that token.
 */
export async function verificationAnswer(
  deps: { domains: Pick<CustomDomainStore, 'findByHostname'> },
  hostname: string,
  token: string,
): Promise<string | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const domain = await deps.domains.findByHostname(hostname);
  return domain && domain.status !== 'active' && domain.token === token ? token : undefined;
}

/**
 * The vanity a code asks for (`domain` id and `slug`), checked: the domain must be this account's and active, the slug
 * 3–64 of a-z 0-9 - _. Another account's domain answers like a missing one.
 */
export async function vanityFor(
  deps: { domains: DomainLookup },
  accountId: string,
  domainName: string,
  slug: string,
): Promise<Vanity> {
  if (!VANITY_SLUG_PATTERN.test(slug)) throw invalidField('slug', '3 to 64 of a-z, 0-9, - and _');
  const domain = await accountDomain(deps.domains, accountId, domainName);
  if (!domain) throw invalidField('domain', 'no custom domain with this id or hostname on your account');
  if (domain.status !== 'active')
    throw invalidField('domain', `${domain.hostname} is not active (status ${domain.status})`);
  return { domainId: domain.id, hostname: domain.hostname, slug };
}
