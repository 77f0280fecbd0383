/**
 * Short-lived shared values: verification codes, reset tokens, OAuth states. In memory on one node;
 * in Redis when several nodes must see the same values.
 */
export interface KvStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Reads and deletes in one step, so a one-time code can be used only once even when raced. */
  take(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export class MemoryKvStore implements KvStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async get(key: string) {
    return this.read(key);
  }
  async set(key: string, value: string, ttlSeconds: number) {
    this.entries.set(key, { value, expiresAt: this.now() + ttlSeconds * 1000 });
  }
  async delete(key: string) {
    this.entries.delete(key);
  }
  async take(key: string) {
    // Read and delete with no await between them: concurrent takers cannot both see the value.
    const value = this.read(key);
    this.entries.delete(key);
    return value;
  }
  async close() {
    clearInterval(this.sweeper);
    this.entries.clear();
  }
  private read(key: string): string | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  private sweep() {
    const now = this.now();
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
  }
}
