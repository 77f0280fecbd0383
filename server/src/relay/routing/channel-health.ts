import type { Redis } from 'ioredis';

/**
 * Short freezes of a (channel, model) pair after a failure, for the retry interval. Every request
 * skips a frozen pair; with Redis, every node does. `now` and expiry are unix milliseconds.
 */
export interface ChannelHealth {
  /** Freezes the pair for `seconds` from now; 0 or less does nothing (RetryCooldownSeconds = 0). */
  freeze(channelId: number, model: string, seconds: number): Promise<void>;
  isFrozen(channelId: number, model: string, now: number): Promise<boolean>;
  /**
   * The frozen ones among `channelIds` with the unix ms their freeze ends, in one round trip: what
   * the selector asks per request (the end orders the freezes when every channel is frozen).
   */
  frozenAmong(
    channelIds: readonly number[],
    model: string,
    now: number,
  ): Promise<ReadonlyMap<number, number>>;
  close(): Promise<void>;
}

const SWEEP_MS = 60_000;
/** The answer while nothing is frozen, shared: no allocation per request. */
const NONE_FROZEN: ReadonlyMap<number, number> = new Map();

export class MemoryChannelHealth implements ChannelHealth {
  private readonly frozenUntil = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly nowMs: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  async freeze(channelId: number, model: string, seconds: number): Promise<void> {
    if (!(seconds > 0)) return;
    const key = pairKey(channelId, model);
    const until = this.nowMs() + seconds * 1000;
    // A shorter freeze arriving later must not cut an earlier, longer one short.
    if ((this.frozenUntil.get(key) ?? 0) < until) this.frozenUntil.set(key, until);
  }

  async isFrozen(channelId: number, model: string, now: number): Promise<boolean> {
    return this.check(pairKey(channelId, model), now);
  }

  async frozenAmong(
    channelIds: readonly number[],
    model: string,
    now: number,
  ): Promise<ReadonlyMap<number, number>> {
    if (this.frozenUntil.size === 0) return NONE_FROZEN;
    const out = new Map<number, number>();
    for (const id of channelIds) {
      const key = pairKey(id, model);
      if (this.check(key, now)) out.set(id, this.frozenUntil.get(key)!);
    }
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.frozenUntil.clear();
  }

  private check(key: string, now: number): boolean {
    const until = this.frozenUntil.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.frozenUntil.delete(key);
    return false;
  }

  private sweep(): void {
    const now = this.nowMs();
    for (const [key, until] of this.frozenUntil) if (until <= now) this.frozenUntil.delete(key);
  }
}

/**
 * Freezes every node honours without a Redis round trip per call: the selector reads this node's
 * memory (`local`). A freeze is written there, kept in Redis as a key with a TTL (for a node that
 * connects later) and published; each node's subscription copies the others' into its memory, and
 * a (re)connected subscriber reloads the keys, since what was published meanwhile is gone. The TTL
 * travels, not an end time, so nodes with skewed clocks agree. A freeze is a hint: if Redis fails,
 * the error is reported and the other nodes simply do not learn of it.
 */
export class RedisChannelHealth implements ChannelHealth {
  private readonly channel: string;
  private readonly onMessage = (channel: string, message: string) => {
    if (channel !== this.channel) return;
    // "<ttl ms>:<channel id>:<model>"
    const colon = message.indexOf(':');
    this.copy(message.slice(colon + 1), Number(message.slice(0, colon)));
  };
  private readonly onReady = () => void this.load();

  /** `subscriber` is a connection in subscriber mode (it may carry other channels too). */
  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly local: ChannelHealth,
    private readonly prefix = 'sy:freeze:',
    private readonly onError: (err: unknown) => void = () => {},
    /** Failures of the subscription and of loading the keys (not of a call): by default `onError`. */
    private readonly onBackgroundError: (err: unknown) => void = onError,
  ) {
    // Not a key name: pair keys are "<channel id>:<model>".
    this.channel = `${prefix}events`;
    subscriber.on('message', this.onMessage);
    subscriber.on('ready', this.onReady);
    subscriber.subscribe(this.channel).catch(this.onBackgroundError);
    void this.load();
  }

  async freeze(channelId: number, model: string, seconds: number): Promise<void> {
    if (!(seconds > 0)) return;
    await this.local.freeze(channelId, model, seconds);
    const pair = pairKey(channelId, model);
    const ttlMs = Math.max(1, Math.ceil(seconds * 1000));
    try {
      // PX with GT would keep the longer of two freezes but needs Redis 7; a plain SET is close enough.
      await this.redis
        .multi()
        .set(this.prefix + pair, String(ttlMs), 'PX', ttlMs)
        .publish(this.channel, `${ttlMs}:${pair}`)
        .exec();
    } catch (err) {
      this.onError(err);
    }
  }

  isFrozen(channelId: number, model: string, now: number): Promise<boolean> {
    return this.local.isFrozen(channelId, model, now);
  }

  frozenAmong(
    channelIds: readonly number[],
    model: string,
    now: number,
  ): Promise<ReadonlyMap<number, number>> {
    return this.local.frozenAmong(channelIds, model, now);
  }

  /** Copies the freezes Redis holds into this node's memory, with what is left of each. */
  async load(): Promise<void> {
    try {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 500);
        cursor = next;
        const pairs = keys.filter((k) => k !== this.channel);
        if (pairs.length === 0) continue;
        const pipeline = this.redis.pipeline();
        for (const key of pairs) pipeline.pttl(key);
        const ttls = (await pipeline.exec()) ?? [];
        for (const [i, key] of pairs.entries())
          this.copy(key.slice(this.prefix.length), Number(ttls[i]?.[1]));
      } while (cursor !== '0');
    } catch (err) {
      this.onBackgroundError(err);
    }
  }

  /** Copies one freeze, named by its pair "<channel id>:<model>", into this node's memory. */
  private copy(pair: string, ttlMs: number): void {
    const colon = pair.indexOf(':');
    const channelId = Number(pair.slice(0, colon));
    if (ttlMs > 0 && colon > 0 && Number.isInteger(channelId))
      void this.local.freeze(channelId, pair.slice(colon + 1), ttlMs / 1000);
  }

  // The connections and `local` belong to the composition root, which closes them.
  async close(): Promise<void> {
    this.subscriber.off('message', this.onMessage);
    this.subscriber.off('ready', this.onReady);
    // Only while connected: a command on a connection that is away would wait in its queue for ever.
    if (this.subscriber.status === 'ready') await this.subscriber.unsubscribe(this.channel).catch(() => {});
  }
}

function pairKey(channelId: number, model: string): string {
  return `${channelId}:${model}`;
}
