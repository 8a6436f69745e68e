// A real DNS server on loopback (UDP, dns-packet): answers the TXT records a test sets, NXDOMAIN for any other name.
import { createSocket, type Socket } from 'node:dgram';
import dnsPacket from 'dns-packet';

export interface DnsServer {
  /** What DNS_SERVERS takes: `127.0.0.1:<port>`. */
  address: string;
  /** Sets (replaces) the TXT records of a name; an empty list leaves the name with no record. */
  setTxt(name: string, values: readonly string[]): void;
  /** Questions asked so far, by name. */
  asked(name: string): number;
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<DnsServer> {
  const records = new Map<string, string[]>();
  const questions = new Map<string, number>();
  const socket: Socket = createSocket('udp4');
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    questions.set(name, (questions.get(name) ?? 0) + 1);
    const values = records.get(name);
    const answers: dnsPacket.Answer[] =
      question.type === 'TXT' && values
        ? values.map((value) => ({ type: 'TXT', name: question.name, ttl: 1, data: value }))
        : [];
    const response = dnsPacket.encode({
      id: query.id ?? 0,
      type: 'response',
      // Authoritative; NXDOMAIN (rcode 3) for a name the test never set.
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (values === undefined ? 3 : 0),
      questions: [question],
      answers,
    });
    socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  // A suite that fails before closing it never keeps the test process alive.
  socket.unref();
  return {
    address: `127.0.0.1:${socket.address().port}`,
    setTxt(name, values) {
      records.set(name.toLowerCase(), [...values]);
    },
    asked: (name) => questions.get(name.toLowerCase()) ?? 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
