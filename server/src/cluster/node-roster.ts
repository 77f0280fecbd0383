import type { ClusterQueries } from './cluster-queries.js';

/** How long a node counts as running after its last heartbeat. */
const SEEN_WINDOW_MS = 60_000;

/**
 * This node's heartbeat row, renewed every `intervalMs`, and a warning when other nodes share the
 * database while this one has no Redis: without it rate limits and channel freezes stay per node.
 */
export class NodeRoster {
  private timer: NodeJS.Timeout | undefined;
  private readonly warned = new Set<string>();

  constructor(
    private readonly queries: ClusterQueries,
    private readonly nodeId: string,
    private readonly hasRedis: boolean,
    private readonly nowMs: () => number,
    private readonly warn: (message: string) => void,
    /** Told at every heartbeat how many nodes (this one included) ran within the last minute. */
    private readonly onNodes: (nodes: number) => void = () => {},
  ) {}

  async start(intervalMs: number): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  /** Writes the heartbeat and returns the other nodes seen recently. */
  async beat(): Promise<{ nodeId: string; redis: boolean }[]> {
    const now = this.nowMs();
    await this.queries.heartbeat(this.nodeId, now, this.hasRedis);
    const others = (await this.queries.nodesSeenSince(now - SEEN_WINDOW_MS)).filter(
      (n) => n.nodeId !== this.nodeId,
    );
    this.onNodes(others.length + 1);
    const fresh = others.filter((n) => !this.warned.has(n.nodeId));
    if (fresh.length > 0 && (!this.hasRedis || fresh.some((n) => !n.redis))) {
      for (const n of fresh) this.warned.add(n.nodeId);
      this.warn(
        `${others.length + 1} nodes share this database (${[this.nodeId, ...others.map((n) => n.nodeId)].join(', ')}) and ${this.hasRedis ? 'some run' : 'this one runs'} without Redis: rate limits, channel freezes and caches stay per node; set the same REDIS_URL on every node`,
      );
    }
    return others;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.queries.forgetNode(this.nodeId).catch(() => {});
  }
}
