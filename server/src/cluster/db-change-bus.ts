import { type ChangeBus, LocalChangeBus } from '../cache/change-bus.js';
import type { ClusterQueries } from './cluster-queries.js';

/**
 * The change bus of nodes that share a PostgreSQL or MySQL database without Redis: a publish counts
 * one more change of its topic in `change_versions`, and every node reads the counters each
 * `pollMs` and reloads what moved (one small SELECT per second per node; works the same on both
 * engines, where LISTEN/NOTIFY would leave MySQL out). A failed read is tried again at the next
 * tick; the counters compare against the last ones read, so nothing changed meanwhile is missed.
 */
export class DbChangeBus implements ChangeBus {
  readonly crossNode = true;
  private readonly local = new LocalChangeBus();
  private seen: Map<string, number> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly queries: ClusterQueries,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Reads the counters once (the baseline), then every `pollMs`. */
  async start(pollMs: number): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
  }

  /**
   * This node applies the change at once; a failed count is reported, the change still applies here.
   * Its own count is added to what it has seen, so the next poll does not reload the same change a
   * second time here. Another node's count in between still leaves the numbers apart (a reload).
   */
  async publish(topic: string): Promise<void> {
    try {
      await this.queries.bumpVersion(topic);
      this.seen?.set(topic, (this.seen.get(topic) ?? 0) + 1);
    } catch (err) {
      this.onError(err);
    }
    await this.local.publish(topic);
  }

  subscribe(topic: string, listener: () => void): void {
    this.local.subscribe(topic, listener);
  }

  poll(): Promise<void> {
    this.polling ??= this.readVersions().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.polling;
    await this.local.close();
  }

  private async readVersions(): Promise<void> {
    let versions: Map<string, number>;
    try {
      versions = await this.queries.versions();
    } catch (err) {
      this.onError(err);
      return;
    }
    const before = this.seen;
    this.seen = versions;
    if (!before) return;
    for (const [topic, version] of versions)
      if (before.get(topic) !== version) await this.local.publish(topic);
  }
}
