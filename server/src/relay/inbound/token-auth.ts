import { BlockList, isIP } from 'node:net';
import { isAdminRole, TokenStatus, UserStatus } from '@switchyard/domain';
import { apiKeyHash, type BearerKey } from '../../auth/api-keys.js';
import type { ChangeBus } from '../../cache/change-bus.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { TokenRow } from '../../db/queries/tokens.js';
import type { Repos } from '../../db/repos.js';
import type { UserGroupRow, UserRow } from '../../db/tables.js';
import { relayErrors } from '../relay-error.js';

export interface RelayCaller {
  token: TokenRow;
  user: UserRow;
  /** The effective group: the token's, else the user's. */
  group: UserGroupRow;
  /** Models this key may use; undefined = all. */
  allowedModels: ReadonlySet<string> | undefined;
  pinChannelId: number | undefined;
  excludeChannelId: number | undefined;
}

/** What a key's token row limits it to; undefined = no limit. */
interface KeyRestrictions {
  models: ReadonlySet<string> | undefined;
  allowsIp: ((ip: string) => boolean) | undefined;
}

interface Cached<T> {
  value: T | undefined;
  until: number;
}

/**
 * Finds and checks the token and user behind an API key. Rows are cached for a few seconds and
 * dropped at once when tokens or users change (bus topics), so a disabled key stops working on the
 * next request. Balances are never trusted from here: the ledger decides.
 */
export class RelayAuthenticator {
  private readonly tokens = new Map<string, Cached<TokenRow>>();
  private readonly users = new Map<number, Cached<UserRow>>();
  /** Key -> its HMAC: the mapping never changes, and the HMAC costs more than the rest of the check. */
  private readonly hashes = new Map<string, string>();
  /**
   * A cached token row's model list and subnets, parsed once per row read rather than per request;
   * a row read again (TTL, change) is a new object and is parsed anew.
   */
  private readonly restrictions = new WeakMap<TokenRow, KeyRestrictions>();

  constructor(
    private readonly repos: Pick<Repos, 'tokens' | 'users'>,
    private readonly box: SecretBox,
    bus: ChangeBus,
    private readonly nowMs: () => number,
    private readonly ttlMs = 5000,
  ) {
    bus.subscribe('tokens', () => this.tokens.clear());
    bus.subscribe('users', () => this.users.clear());
  }

  async authenticate(
    key: BearerKey | null,
    ip: string,
    groups: ReadonlyMap<string, UserGroupRow>,
  ): Promise<RelayCaller> {
    if (!key) throw relayErrors.missingKey();
    const token = await this.token(this.hashOf(key.key));
    if (!token) throw relayErrors.invalidKey();
    const nowSeconds = Math.floor(this.nowMs() / 1000);
    if (token.status === TokenStatus.Disabled) throw relayErrors.tokenDisabled();
    if (
      token.status === TokenStatus.Expired ||
      (token.expired_time !== -1 && token.expired_time <= nowSeconds)
    ) {
      throw relayErrors.tokenExpired();
    }
    if (token.status === TokenStatus.Exhausted || (!token.unlimited_quota && token.remain_quota <= 0)) {
      throw relayErrors.tokenExhausted();
    }
    if (token.status !== TokenStatus.Enabled) throw relayErrors.tokenDisabled();
    const restricted = this.restrictionsOf(token);
    if (restricted.allowsIp && !restricted.allowsIp(ip)) throw relayErrors.ipNotAllowed(ip);

    const user = await this.user(token.user_id);
    if (!user || user.status !== UserStatus.Enabled) throw relayErrors.userDisabled();
    if ((key.pinChannelId !== undefined || key.excludeChannelId !== undefined) && !isAdminRole(user.role)) {
      throw relayErrors.pinNotAllowed();
    }
    const symbol = token.group || user.group;
    const group = groups.get(symbol);
    if (!group?.enable) throw relayErrors.groupUnavailable(symbol);
    return {
      token,
      user,
      group,
      allowedModels: restricted.models,
      pinChannelId: key.pinChannelId,
      excludeChannelId: key.excludeChannelId,
    };
  }

  private restrictionsOf(token: TokenRow): KeyRestrictions {
    let restricted = this.restrictions.get(token);
    if (!restricted) {
      restricted = {
        models: parseModelList(token.models),
        allowsIp: token.subnet.trim() ? subnetMatcher(token.subnet) : undefined,
      };
      this.restrictions.set(token, restricted);
    }
    return restricted;
  }

  private hashOf(key: string): string {
    let hash = this.hashes.get(key);
    if (hash === undefined) {
      if (this.hashes.size >= 100_000) this.hashes.clear();
      hash = apiKeyHash(this.box, key);
      this.hashes.set(key, hash);
    }
    return hash;
  }

  private async token(hash: string): Promise<TokenRow | undefined> {
    const now = this.nowMs();
    const hit = this.tokens.get(hash);
    if (hit && hit.until > now) return hit.value;
    const value = await this.repos.tokens.byKeyHash(hash);
    // Unknown keys are cached too, so a client hammering with a bad key costs one query per TTL.
    if (this.tokens.size > 100_000) this.tokens.clear();
    this.tokens.set(hash, { value, until: now + this.ttlMs });
    return value;
  }

  private async user(id: number): Promise<UserRow | undefined> {
    const now = this.nowMs();
    const hit = this.users.get(id);
    if (hit && hit.until > now) return hit.value;
    const value = await this.repos.users.byId(id);
    if (this.users.size > 100_000) this.users.clear();
    this.users.set(id, { value, until: now + this.ttlMs });
    return value;
  }
}

function parseModelList(json: string | null): ReadonlySet<string> | undefined {
  if (json === null || json === '') return undefined;
  try {
    const list = JSON.parse(json) as unknown;
    if (Array.isArray(list)) return new Set(list.filter((m): m is string => typeof m === 'string'));
  } catch {
    // A malformed list allows nothing rather than everything.
  }
  return new Set();
}

/** The comma-separated addresses and CIDR ranges of `list`, read once, as a test of an address. */
function subnetMatcher(list: string): (ip: string) => boolean {
  const blocks = new BlockList();
  for (const entry of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [address, bits] = entry.split('/');
    if (!address || !isIP(address)) continue;
    const entryFamily = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) blocks.addAddress(address, entryFamily);
    else blocks.addSubnet(address, Number(bits), entryFamily);
  }
  return (ip) => {
    const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
    const version = isIP(plain);
    return version !== 0 && blocks.check(plain, version === 6 ? 'ipv6' : 'ipv4');
  };
}
