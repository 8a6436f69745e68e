// Use cases for custom domains: add one within the plan, list, read, delete when no code uses it, verify it (on demand, by the job, or by an operator).
import {
  DOMAIN_ID,
  newDomainId,
  newVerificationToken,
  normalisedHostname,
  TOKEN_PATTERN,
  type CustomDomain,
  type Vanity,
  VANITY_SLUG_PATTERN,
} from '../domain/custom-domain.js';
import { ApiError, invalidField } from '../domain/errors.js';
import type { PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { CustomDomainStore } from '../domain/ports/custom-domain-store.js';
import type { DomainProbe } from '../domain/ports/domain-probe.js';
import type { DynamicCodeStore } from '../domain/ports/dynamic-code-store.js';

export interface CustomDomainDeps {
  domains: CustomDomainStore;
  codes: Pick<DynamicCodeStore, 'countOnDomain'>;
  plans: PlanCatalogue;
  clock: () => Date;
  /** Hostnames of this service itself (PUBLIC_URL's): never registrable as a custom domain. */
  ownHostnames: readonly string[];
}

interface Owner {
  accountId: string;
  plan: PlanId;
}

/** The verification job checks each pending domain at most this often, and this many per run. */
export const VERIFICATION_SCHEDULE = { recheckMs: 5 * 60_000, perRun: 50 } as const;

function notFound(): ApiError {
  // Another tenant's domain answers exactly like a missing one.
  return new ApiError('not_found', 'no custom domain with this id on your account');
}

export async function addDomain(deps: CustomDomainDeps, owner: Owner, input: { hostname: string }): Promise<CustomDomain> {
  const plan = deps.plans.get(owner.plan);
  if (plan.customDomains === 0) {
    throw new ApiError('plan_upgrade_required', `custom domains are not included in the ${plan.name} plan`, { extensions: { plan: plan.id } });
  }
  const normalised = normalisedHostname(input.hostname);
  if ('problem' in normalised) throw invalidField('hostname', normalised.problem);
  const { hostname } = normalised;
  if (deps.ownHostnames.includes(hostname)) throw invalidField('hostname', "is this service's own hostname");
  const created = await deps.domains.createWithinLimit(
    { id: newDomainId(), accountId: owner.accountId, hostname, token: newVerificationToken(), createdAt: deps.clock() },
    plan.customDomains,
  );
  if (created === 'hostname_taken') throw new ApiError('hostname_taken', `${hostname} is already registered`);
  if (created === 'limit_reached') {
    throw new ApiError('domain_limit_reached', `the ${plan.name} plan allows ${plan.customDomains} custom domains; delete one to add another`, {
      extensions: { limit: plan.customDomains },
    });
  }
  return created;
}

export function listDomains(deps: Pick<CustomDomainDeps, 'domains'>, accountId: string): Promise<CustomDomain[]> {
  return deps.domains.list(accountId);
}

export async function getDomain(deps: Pick<CustomDomainDeps, 'domains'>, accountId: string, id: string): Promise<CustomDomain> {
  const domain = DOMAIN_ID.test(id) ? await deps.domains.get(accountId, id) : undefined;
  if (!domain) throw notFound();
  return domain;
}

/** Refused (409 domain_in_use) while a code that is not deleted lives on it: its printed short URLs would stop working. */
export async function deleteDomain(deps: CustomDomainDeps, accountId: string, id: string): Promise<void> {
  const domain = await getDomain(deps, accountId, id);
  const codes = await deps.codes.countOnDomain(domain.id);
  if (codes > 0) {
    throw new ApiError('domain_in_use', `${codes} code(s) use ${domain.hostname}; move or delete them first`, { extensions: { codes } });
  }
  if (!(await deps.domains.remove(accountId, id))) throw notFound();
}

/** One check of a pending domain: active when its verification URL answered the token, else the problem is noted on it. */
async function checkOnce(deps: Pick<CustomDomainDeps, 'domains' | 'clock'>, probe: DomainProbe, domain: CustomDomain): Promise<CustomDomain> {
  if (domain.status === 'active') return domain;
  const problem = await probe.check(domain.hostname, domain.token);
  const at = deps.clock();
  if (problem === null) return (await deps.domains.activate(domain.id, at)) ?? domain;
  await deps.domains.noteCheck(domain.id, at, problem);
  return { ...domain, lastCheck: { at, problem } };
}

/** On demand (POST …/domains/{id}/verify): checks now and answers the domain as it then is. */
export async function verifyDomain(
  deps: Pick<CustomDomainDeps, 'domains' | 'clock'>,
  probe: DomainProbe,
  accountId: string,
  id: string,
): Promise<CustomDomain> {
  return checkOnce(deps, probe, await getDomain(deps, accountId, id));
}

/** The background job: pending domains not checked for a while, a bounded number per run; answers how many became active. */
export async function verifyPendingDomains(deps: Pick<CustomDomainDeps, 'domains' | 'clock'>, probe: DomainProbe): Promise<number> {
  const now = deps.clock();
  const due = await deps.domains.pendingDue(new Date(now.getTime() - VERIFICATION_SCHEDULE.recheckMs), VERIFICATION_SCHEDULE.perRun);
  let activated = 0;
  for (const domain of due) if ((await checkOnce(deps, probe, domain)).status === 'active') activated++;
  return activated;
}

/** Operators (`qrm domains verify`): the operator vouches for the hostname; no check is made. */
export async function activateByHostname(deps: Pick<CustomDomainDeps, 'domains' | 'clock'>, hostname: string): Promise<CustomDomain> {
  const normalised = normalisedHostname(hostname);
  if ('problem' in normalised) throw invalidField('hostname', normalised.problem);
  const domain = await deps.domains.findByHostname(normalised.hostname);
  if (!domain) throw new ApiError('not_found', `no custom domain ${normalised.hostname}`);
  return (await deps.domains.activate(domain.id, deps.clock())) ?? domain;
}

/** What `/.well-known/qrm-domain/<token>` answers on a Host: the token, for a pending domain of that hostname with that token. */
export async function verificationAnswer(
  deps: { domains: Pick<CustomDomainStore, 'findByHostname'> },
  hostname: string,
  token: string,
): Promise<string | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const domain = await deps.domains.findByHostname(hostname);
  return domain && domain.status === 'pending' && domain.token === token ? token : undefined;
}

/**
 * The vanity a code asks for (`domain` id and `slug`), checked: the domain must be this account's and active, the slug
 * 3–64 of a-z 0-9 - _. Another account's domain answers like a missing one.
 */
export async function vanityFor(deps: { domains: Pick<CustomDomainStore, 'get'> }, accountId: string, domainId: string, slug: string): Promise<Vanity> {
  if (!VANITY_SLUG_PATTERN.test(slug)) throw invalidField('slug', '3 to 64 of a-z, 0-9, - and _');
  const domain = DOMAIN_ID.test(domainId) ? await deps.domains.get(accountId, domainId) : undefined;
  if (!domain) throw invalidField('domain', 'no custom domain with this id on your account');
  if (domain.status !== 'active') throw invalidField('domain', `${domain.hostname} is not verified yet (status pending)`);
  return { domainId: domain.id, hostname: domain.hostname, slug };
}
