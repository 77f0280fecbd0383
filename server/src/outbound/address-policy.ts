import type { LookupAddress, LookupOptions } from 'node:dns';
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

// Which addresses the gateway may open a connection to (SSRF). Checked on every connection after
// DNS resolution (a `lookup` hook), so a hostname that resolves to a refused address, or resolves
// differently the second time (DNS rebinding), still cannot reach it.

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Refused whatever the configuration says: cloud metadata services and link-local addresses. */
const ALWAYS_REFUSED: Array<{ cidr: string; why: string }> = [
  { cidr: '169.254.169.254/32', why: 'cloud metadata address' },
  { cidr: 'fd00:ec2::254/128', why: 'cloud metadata address' },
  { cidr: '100.100.100.200/32', why: 'cloud metadata address' },
  { cidr: '169.254.0.0/16', why: 'link-local address' },
  { cidr: 'fe80::/10', why: 'link-local address' },
  // The same IPv4 link-local range reached through NAT64 or 6to4.
  { cidr: '64:ff9b::a9fe:0/112', why: 'link-local address' },
  { cidr: '2002:a9fe::/32', why: 'link-local address' },
];

/** Host names of metadata services, refused before any lookup. */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);

/** Reached only when OUTBOUND_ALLOWED_NETWORKS lists them. */
const LISTED_ONLY: Array<{ cidr: string; why: string }> = [
  { cidr: '127.0.0.0/8', why: 'loopback address' },
  { cidr: '::1/128', why: 'loopback address' },
  { cidr: '0.0.0.0/8', why: 'unspecified address' },
  { cidr: '::/128', why: 'unspecified address' },
  { cidr: '10.0.0.0/8', why: 'private address' },
  { cidr: '172.16.0.0/12', why: 'private address' },
  { cidr: '192.168.0.0/16', why: 'private address' },
  { cidr: '100.64.0.0/10', why: 'shared (carrier-grade NAT) address' },
  { cidr: 'fc00::/7', why: 'private (unique local) address' },
];

/** A connection the outbound policy refused; its message names the address and the rule. */
export class OutboundRefused extends Error {
  readonly code = 'ERR_OUTBOUND_REFUSED';
  constructor(
    readonly address: string,
    readonly host: string,
    readonly reason: string,
  ) {
    const named = host && host !== address ? ` (${host})` : '';
    super(`address ${address}${named} refused by the outbound policy: ${reason}`);
    this.name = 'OutboundRefused';
  }
}

/** A bad entry in the list of allowed networks. */
export class AllowedNetworkError extends Error {}

function range(cidr: string): Range {
  return ipaddr.parseCIDR(cidr) as Range;
}

const alwaysRefused = ALWAYS_REFUSED.map((r) => ({ range: range(r.cidr), why: r.why }));
const listedOnly = LISTED_ONLY.map((r) => ({ range: range(r.cidr), why: r.why }));

function within(addr: ipaddr.IPv4 | ipaddr.IPv6, r: Range): boolean {
  return addr.kind() === r[0].kind() && addr.match(r);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The lookup net.connect and tls.connect call for a host name: Node's, then the policy. */
export type PolicyLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

export class AddressPolicy {
  private readonly allowed: Range[];

  /** `allowed`: the networks (CIDRs or single addresses) of the listed-only ranges the gateway may reach. */
  constructor(
    allowed: readonly string[] = [],
    private readonly resolve: typeof dns.lookup = dns.lookup,
  ) {
    this.allowed = allowed.map(parseNetwork);
  }

  /** Parses OUTBOUND_ALLOWED_NETWORKS: CIDRs or addresses separated by commas or spaces. */
  static parseList(list: string): string[] {
    const entries = list
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    for (const e of entries) parseNetwork(e);
    return entries;
  }

  /** Why `address` may not be reached, or null when it may. `host` is named in the error. */
  refusal(address: string, host = address): OutboundRefused | null {
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      // IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it reaches.
      addr = ipaddr.process(address);
    } catch {
      return new OutboundRefused(address, host, 'not an IP address');
    }
    for (const r of alwaysRefused)
      if (within(addr, r.range)) return new OutboundRefused(address, host, r.why);
    for (const r of listedOnly) {
      if (!within(addr, r.range)) continue;
      if (this.allowed.some((a) => within(addr, a))) return null;
      return new OutboundRefused(address, host, `${r.why}, not listed in OUTBOUND_ALLOWED_NETWORKS`);
    }
    return null;
  }

  /**
   * What can be judged before a lookup: a metadata host name, or an IP literal (Node's connect
   * does not call `lookup` for those). Null for a host name to resolve.
   */
  refusalBeforeLookup(host: string): OutboundRefused | null {
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    const name = bare.toLowerCase().replace(/\.$/, '');
    if (METADATA_HOSTS.has(name)) return new OutboundRefused(bare, bare, 'cloud metadata host name');
    if (net.isIP(bare)) return this.refusal(bare);
    return null;
  }

  /** Throws OutboundRefused when `host` is refused before any lookup. */
  assertHost(host: string): void {
    const refused = this.refusalBeforeLookup(host);
    if (refused) throw refused;
  }

  /**
   * For net.connect/tls.connect's `lookup` option: resolves, then refuses the connection when any
   * address the name resolved to is refused (so a mixed answer cannot be raced to the bad one).
   */
  readonly lookup: PolicyLookup = (hostname, options, callback) => {
    const before = this.refusalBeforeLookup(hostname);
    if (before) {
      callback(before, options.all ? [] : '', undefined);
      return;
    }
    this.resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, options.all ? [] : '', undefined);
        return;
      }
      const list = addresses as LookupAddress[];
      for (const a of list) {
        const refused = this.refusal(a.address, hostname);
        if (refused) {
          callback(refused, options.all ? [] : '', undefined);
          return;
        }
      }
      if (options.all) {
        callback(null, list);
        return;
      }
      const first = list[0];
      if (!first) {
        const none = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        callback(none, '', undefined);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}

function parseNetwork(entry: string): Range {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry) as Range;
    const addr = ipaddr.parse(entry);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new AllowedNetworkError(`"${entry}" is not a network (CIDR such as 10.0.0.0/8) or an IP address`);
  }
}
