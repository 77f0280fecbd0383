import type { Redis } from 'ioredis';

/** How often a Redis that stopped answering on an open connection is asked again. */
const PROBE_MS = 1000;

/**
 * Whether Redis may be asked. A lost connection, a refused or timed-out command opens the breaker:
 * from then on the callers go straight to their fallback (this node's memory, the database) without
 * waiting on Redis, until the connection is ready again (or, after a timeout on a connection that
 * stayed open, a probe answers). Each outage is reported once, and its end, after which the caches
 * are reloaded (`onRecover`): messages published while a node was away are never relied upon.
 */
export class RedisBreaker {
  private down = false;
  /** Closed by the stop: the connection's end is no outage to report. */
  private closed = false;
  private probe: NodeJS.Timeout | undefined;
  private readonly recovered: (() => void)[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly warn: (message: string) => void,
  ) {
    redis.on('ready', () => this.up());
    redis.on('close', () => this.trip('connection closed'));
    // Without a listener ioredis prints every reconnection error itself.
    redis.on('error', (err: Error) => this.trip(err.message));
  }

  get available(): boolean {
    return !this.down;
  }

  /** Runs `viaRedis` while the breaker is closed; `fallback` when it is open or `viaRedis` fails. */
  async guarded<T>(viaRedis: () => Promise<T>, fallback: () => Promise<T> | T): Promise<T> {
    if (this.down) return fallback();
    try {
      return await viaRedis();
    } catch (err) {
      this.trip(err instanceof Error ? err.message : String(err));
      return fallback();
    }
  }

  /** Called (once per outage) when Redis answers again. */
  onRecover(listener: () => void): void {
    this.recovered.push(listener);
  }

  trip(reason: string): void {
    if (this.down || this.closed) return;
    this.down = true;
    this.warn(
      `Redis is unavailable (${reason}): rate limits use this node's memory and sessions the database until it is back`,
    );
    this.probe = setInterval(() => {
      if (this.redis.status !== 'ready') return;
      this.redis.ping().then(
        () => this.up(),
        () => {},
      );
    }, PROBE_MS);
    this.probe.unref();
  }

  close(): void {
    this.closed = true;
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
  }

  private up(): void {
    if (!this.down) return;
    this.down = false;
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
    this.warn('Redis is back: shared rate limits and sessions resume, every cache is reloaded');
    for (const listener of this.recovered) listener();
  }
}
