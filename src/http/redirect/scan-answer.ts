// What a scan of a dynamic code gets: the 302 its rules choose, the password form, or a page saying why not — shared by
// /r/{slug} and custom domains.
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { expiredTargetOf, isExpired, scanRoute, type ScanContext } from '../../domain/code-routing.js';
import type { SlugTarget } from '../../domain/dynamic-code.js';
import { PASSWORD_LENGTH, passwordMatches } from '../../domain/password-hash.js';
import type { GeoLookup } from '../../domain/ports/geo-lookup.js';
import type { GuessLimiter } from '../../domain/ports/guess-limiter.js';
import type { ScanAllowance } from '../../domain/ports/scan-allowance.js';
import type { ScanPrivacyLookup } from '../../domain/ports/scan-privacy-lookup.js';
import type { ScanPrivacy } from '../../domain/scan-privacy.js';
import { deviceClassOf } from '../../domain/scan.js';
import type { HmacSha256 } from '../../domain/hmac-sha256.js';
import { splitPointOf } from '../../domain/split-arm.js';
import { addressBucket } from '../portal/rate-limits.js';
import type { BotVerdicts } from './bot-verdicts.js';
import type { LocationMemo } from './location-memo.js';
import { scanVisitorOf, type ScanVisitor } from './scan-visitor.js';
import {
  expiredHtml,
  goneHtml,
  notFoundHtml,
  passwordHtml,
  tooManyGuessesForCodeHtml,
  tooManyGuessesHtml,
} from './pages.js';

export interface ScanAnswerDeps {
  scanAllowance: ScanAllowance;
  /** The owner's scanPrivacy: how much of the scan is kept once it is recorded. */
  scanPrivacy: ScanPrivacyLookup;
  guesses: GuessLimiter;
  /** Places scans (country rules and counts), from data loaded once per process. */
  geo: GeoLookup;
  clock: () => Date;
  /** Keys the hash that places a visitor in a split (see split-arm.ts). */
  splitKey: Uint8Array;
}

/** What the redirect remembers between scans, owned by the redirect routes of one app. */
export interface ScanMemory {
  bots: BotVerdicts;
  locations: LocationMemo;
  /** The split's keyed hash under `splitKey`, its pads worked out once. */
  splitHash: HmacSha256;
}

/**
 * Wrong passwords in one window before the 429 page: `max` per code and client address (IPv6 by /64), and `perCodeMax`
 * per code from all addresses together (guessing spread over many addresses), each with its own page.
 */
export const PASSWORD_GUESSES = { max: 5, perCodeMax: 50, windowMs: 15 * 60_000 } as const;

export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

/** The stored target as a header value: WHATWG serialisation percent-encodes what a header cannot carry. */
function location(target: string): string {
  return new URL(target).href;
}

function queryOf(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}

/**
 * The client's address bucket as the guess limiter keys it: a keyed hash (the operator's key), so no address is stored.
 */
function guessAddressKey(key: Uint8Array, address: string): string {
  return createHmac('sha256', key)
    .update('password-guesses\u0000')
    .update(addressBucket(address))
    .digest('base64url')
    .slice(0, 22);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the answer is a redirect: the code whose scan is recorded once the answer is sent. */
    scannedCode: SlugTarget | undefined;
    /** The split arm the redirect chose (`default:0`, `rules[1]:1`), counted with the scan. */
    splitArm: string | undefined;
    /** Who scanned, worked out once for the rules and the count. */
    scanVisitor: ScanVisitor | undefined;
    /** The owner's scanPrivacy, read while the scan is answered so the count is recorded as soon as it is sent. */
    scanPrivacy: ScanPrivacy | undefined;
  }
}

/**
 * `submitted` is the password a form post carried, or null for a plain scan. Order: the code's state, its expiry
 * date, its password, its scan limit (taken only once the password is right), then the rules; UTM tags and the
 * forwarded query are added to whichever target wins. A password is never asked of an expired code.
 */
export async function answerScan(
  deps: ScanAnswerDeps,
  memory: ScanMemory,
  found: SlugTarget | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  submitted: string | null,
): Promise<FastifyReply> {
  reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
  if (!found) return reply.code(404).headers(PAGE_HEADERS).send(notFoundHtml);
  if (found.state !== 'active') return reply.code(410).headers(PAGE_HEADERS).send(goneHtml);
  const routing = found.routing;
  // Read beside the checks below, not after them: a cached answer costs the redirect no wait. Unknown (the store
  // failing): the scan is still counted, keeping the least there is.
  const privacy = deps.scanPrivacy.privacyOf(found.accountId).catch((): ScanPrivacy => 'none');
  const visitor = scanVisitorOf(deps.geo, memory.bots, request);
  request.scanVisitor = visitor;
  const scan: ScanContext = {
    at: deps.clock(),
    device: deviceClassOf(request.headers['user-agent']),
    acceptLanguage: request.headers['accept-language'],
    query: queryOf(request.url),
    splitPoint: () => splitPointOf(memory.splitHash, visitor.visitor, found.codeId, scan.at),
    place: visitor.place,
  };
  const expired = async () => {
    const target = expiredTargetOf(routing, scan);
    if (target === undefined) return reply.code(410).headers(PAGE_HEADERS).send(expiredHtml);
    request.scanPrivacy = await privacy;
    request.scannedCode = found;
    return reply.code(302).header('Location', location(target)).send();
  };
  if (isExpired(routing, scan.at)) return expired();

  if (routing.passwordHash !== null) {
    if (submitted === null) return reply.code(401).headers(PAGE_HEADERS).send(passwordHtml(PASSWORD_LENGTH.max, false));
    // Counted before the hash is checked, so parallel guesses cannot slip past a limit. Only a wrong answer stays
    // counted: a right one, and an attempt refused unchecked, are given back, so right answers never lock anyone out.
    const byAddress = `${found.codeId}|${guessAddressKey(deps.splitKey, request.ip)}`;
    const byCode = `${found.codeId}|*`;
    const tooMany = (resetAt: Date, html: (retryAfter: number) => string) => {
      const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - scan.at.getTime()) / 1000));
      return reply.code(429).headers(PAGE_HEADERS).header('Retry-After', String(retryAfter)).send(html(retryAfter));
    };
    const fromAddress = await deps.guesses.attempt(byAddress, PASSWORD_GUESSES.windowMs, scan.at);
    if (fromAddress.guesses > PASSWORD_GUESSES.max) {
      await deps.guesses.forgive(byAddress);
      return tooMany(fromAddress.resetAt, tooManyGuessesHtml);
    }
    const onCode = await deps.guesses.attempt(byCode, PASSWORD_GUESSES.windowMs, scan.at);
    if (onCode.guesses > PASSWORD_GUESSES.perCodeMax) {
      await Promise.all([deps.guesses.forgive(byAddress), deps.guesses.forgive(byCode)]);
      return tooMany(onCode.resetAt, tooManyGuessesForCodeHtml);
    }
    const right = submitted.length <= PASSWORD_LENGTH.max && (await passwordMatches(submitted, routing.passwordHash));
    if (!right) return reply.code(401).headers(PAGE_HEADERS).send(passwordHtml(PASSWORD_LENGTH.max, true));
    await Promise.all([deps.guesses.forgive(byAddress), deps.guesses.forgive(byCode)]);
  }

  // A crawler or link preview never uses up a scan limit: it is answered as a person would be, uncounted.
  if (routing.maxScans !== null && !visitor.bot && !(await deps.scanAllowance.take(found.codeId, routing.maxScans)))
    return expired();
  const route = scanRoute(routing, found.target, scan);
  const header = route.perScan
    ? location(route.decorated())
    : memory.locations.of(found, route.target, () => location(route.decorated()));
  request.scanPrivacy = await privacy;
  request.scannedCode = found;
  request.splitArm = route.arm;
  return reply.code(302).header('Location', header).send();
}
