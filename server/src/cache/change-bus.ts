import type { Redis } from 'ioredis';

/**
 * Tells other nodes that shared in-memory state (options, channels, prices...) changed. One node:
 * listeners in this process only. Several nodes: Redis pub/sub.
 */
export interface ChangeBus {
  publish(topic: string): Promise<void>;
  subscribe(topic: string, listener: () => void): void;
  /** True when changes made on other nodes arrive through this bus. */
  readonly crossNode: boolean;
  close(): Promise<void>;
}

export class LocalChangeBus implements ChangeBus {
  readonly crossNode = false;
  private readonly listeners = new Map<string, Set<() => void>>();
  async publish(topic: string) {
    for (const l of this.listeners.get(topic) ?? []) l();
  }
  subscribe(topic: string, listener: () => void) {
    const set = this.listeners.get(topic) ?? new Set();
    set.add(listener);
    this.listeners.set(topic, set);
  }
  async close() {
    this.listeners.clear();
  }

  /** Tells every listener of every topic: all of it may have changed. */
  publishAll(): void {
    for (const set of this.listeners.values()) for (const l of set) l();
  }
}

export class RedisChangeBus implements ChangeBus {
  readonly crossNode = true;
  private readonly local = new LocalChangeBus();
  private readonly channel: string;

  /** `subscriber` must be a dedicated connection: a subscribed Redis connection can do nothing else. */
  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    prefix = 'sy:changes',
  ) {
    this.channel = prefix;
    void this.subscriber.subscribe(this.channel).catch(() => {});
    // The connection may carry other channels (the channel freezes').
    this.subscriber.on('message', (channel: string, topic: string) => {
      if (channel === this.channel) void this.local.publish(topic);
    });
    // ioredis subscribes again after a reconnection, but what was published meanwhile is gone:
    // everything is reloaded instead of relying on it.
    let connected = false;
    this.subscriber.on('ready', () => {
      if (connected) this.local.publishAll();
      connected = true;
    });
    this.subscriber.on('error', () => {});
  }

  /** The change applies on this node whatever happens to Redis; the others reload when they reconnect. */
  async publish(topic: string) {
    try {
      await this.publisher.publish(this.channel, topic);
    } catch {
      await this.local.publish(topic);
    }
  }

  /** Reloads everything on this node (Redis came back: messages may have been missed). */
  reloadAll(): void {
    this.local.publishAll();
  }
  subscribe(topic: string, listener: () => void) {
    this.local.subscribe(topic, listener);
  }
  async close() {
    await this.local.close();
    // QUIT waits in the offline queue while Redis is away, for ever: a stop then cuts the connection.
    if (this.subscriber.status === 'ready') await this.subscriber.quit().catch(() => {});
    else this.subscriber.disconnect();
  }
}
