// Who scanned, as far as a scan is counted: crawler or person (isbot), the place (never the address), the visitor
// digest.
import type { FastifyRequest } from 'fastify';
import type { GeoLookup } from '../../domain/ports/geo-lookup.js';
import { visitorKey, type ScanPlace } from '../../domain/scan.js';
import type { BotVerdicts } from './bot-verdicts.js';

export interface ScanVisitor {
  /** A crawler or link preview (Slackbot, facebookexternalhit, Googlebot, …): answered as usual, counted apart. */
  bot: boolean;
  place: ScanPlace | null;
  /** The unsalted digest of address and user agent the recorders salt per day. */
  visitor: string;
}

const USER_AGENT_LIMIT = 512;

/** The client address is request.ip: the socket's, or X-Forwarded-For through the TRUST_PROXY hops only. */
export function scanVisitorOf(geo: GeoLookup, bots: BotVerdicts, request: FastifyRequest): ScanVisitor {
  const userAgent = request.headers['user-agent']?.slice(0, USER_AGENT_LIMIT);
  return { bot: bots.isBot(userAgent), place: geo.placeOf(request.ip), visitor: visitorKey(request.ip, userAgent) };
}
