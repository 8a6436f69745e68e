// Custom domains proved by DNS: a claim becomes active only when `_qrm-challenge.<hostname>` holds its token; active
// domains are re-checked daily (suspended when the proof is gone), pending claims expire; the HTTP check is advice
// only.
import { PENDING_LIFETIME_MS, proofName, type CustomDomain } from '../domain/custom-domain.js';
import type { CustomDomainStore } from '../domain/ports/custom-domain-store.js';
import type { DomainProbe } from '../domain/ports/domain-probe.js';
import { DnsUnavailable, type TxtLookup } from '../domain/ports/txt-lookup.js';

export interface DomainProofDeps {
  domains: Pick<CustomDomainStore, 'activate' | 'noteCheck'>;
  dns: TxtLookup;
  /** Whether the hostname reaches this service: reported to the owner, never enough to activate. */
  probe: DomainProbe;
  clock: () => Date;
}

/** The job checks unproved claims at most every 5 minutes, active domains once a day, and this many of each per run. */
export const PROOF_SCHEDULE = { unprovedEveryMs: 5 * 60_000, activeEveryMs: 24 * 60 * 60_000, perRun: 50 } as const;

type Proof = { proved: true } | { proved: false; problem: string; dnsDown: boolean };

/** Whether the domain's TXT record holds its token now. */
export async function readProof(dns: TxtLookup, domain: Pick<CustomDomain, 'hostname' | 'token'>): Promise<Proof> {
  const name = proofName(domain.hostname);
  let values: string[];
  try {
    values = await dns.txt(name);
  } catch (error) {
    if (!(error instanceof DnsUnavailable)) throw error;
    return { proved: false, dnsDown: true, problem: `DNS did not answer for ${name}; it is asked again later` };
  }
  if (values.some((value) => value.trim() === domain.token)) return { proved: true };
  const problem =
    values.length === 0 ? `no TXT record ${name}` : `the TXT record ${name} does not hold this domain's token`;
  return { proved: false, dnsDown: false, problem };
}

/** A domain that is not active (pending, suspended, expired) becomes active when its TXT record holds the token. */
export async function proveDomain(deps: DomainProofDeps, domain: CustomDomain): Promise<CustomDomain> {
  if (domain.status === 'active') return domain;
  const proof = await readProof(deps.dns, domain);
  if (!proof.proved) {
    const at = deps.clock();
    await deps.domains.noteCheck(domain.id, at, proof.problem);
    return { ...domain, lastCheck: { at, problem: proof.problem } };
  }
  // Asked before activation, while the well-known URL still answers the token.
  const reach = await deps.probe.check(domain.hostname, domain.token);
  const at = deps.clock();
  const active = (await deps.domains.activate(domain.id, at)) ?? domain;
  const problem = reach === null ? null : `proved by DNS, but scans do not reach this service yet: ${reach}`;
  await deps.domains.noteCheck(domain.id, at, problem);
  return { ...active, lastCheck: { at, problem } };
}

export interface DomainSweepDeps extends DomainProofDeps {
  domains: Pick<CustomDomainStore, 'activate' | 'noteCheck' | 'due' | 'transition' | 'expirePending'>;
  /** Tells the owner of a domain just suspended (the `domain.suspended` webhook). */
  suspended(domain: CustomDomain): Promise<void>;
}

/**
 * Re-checks an active domain: suspended (and its owner told) when DNS answers without the token; a DNS failure proves
 * nothing.
 */
async function recheckActive(deps: DomainSweepDeps, domain: CustomDomain): Promise<boolean> {
  const proof = await readProof(deps.dns, domain);
  const at = deps.clock();
  if (proof.proved || proof.dnsDown) {
    await deps.domains.noteCheck(domain.id, at, proof.proved ? null : proof.problem);
    return false;
  }
  const suspended = await deps.domains.transition(domain.id, 'active', 'suspended');
  await deps.domains.noteCheck(domain.id, at, proof.problem);
  if (suspended) await deps.suspended({ ...suspended, lastCheck: { at, problem: proof.problem } });
  return suspended !== undefined;
}

/** The background job: expires old claims, proves the due unproved ones, re-checks the due active ones. */
export async function sweepDomains(
  deps: DomainSweepDeps,
): Promise<{ expired: number; activated: number; suspended: number }> {
  const now = deps.clock().getTime();
  const expired = await deps.domains.expirePending(new Date(now - PENDING_LIFETIME_MS));
  let activated = 0;
  for (const status of ['pending', 'suspended'] as const) {
    for (const domain of await deps.domains.due(
      status,
      new Date(now - PROOF_SCHEDULE.unprovedEveryMs),
      PROOF_SCHEDULE.perRun,
    )) {
      if ((await proveDomain(deps, domain)).status === 'active') activated++;
    }
  }
  let suspended = 0;
  for (const domain of await deps.domains.due(
    'active',
    new Date(now - PROOF_SCHEDULE.activeEveryMs),
    PROOF_SCHEDULE.perRun,
  )) {
    if (await recheckActive(deps, domain)) suspended++;
  }
  return { expired, activated, suspended };
}
