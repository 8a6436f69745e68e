// Port: the DNS TXT records of a name, as the custom-domain proof reads them.

/** DNS could not answer (a timeout, SERVFAIL, no server): no proof either way. */
export class DnsUnavailable extends Error {
  override name = 'DnsUnavailable';
}

/**
 * Contract: `txt` answers the name's TXT records, each one's strings joined; [] when the name does not exist or has no
 * TXT record (NXDOMAIN, NODATA); throws DnsUnavailable when the resolver could not tell.
 */
export interface TxtLookup {
  txt(name: string): Promise<string[]>;
}
