import type { ClusterQueries } from './cluster-queries.js';

/**
 * One scheduled job's turn across the nodes sharing a database: `hold()` takes or renews the lease
 * row and says whether this node may run the job now. A node that stops renewing (killed, cut off)
 * loses it when it expires, and another node takes the job at its next tick.
 */
export class JobLease {
  constructor(
    private readonly queries: ClusterQueries,
    readonly name: string,
    private readonly nodeId: string,
    private readonly ttlMs: number,
    private readonly nowMs: () => number,
  ) {}

  async hold(): Promise<boolean> {
    const now = this.nowMs();
    return this.queries.takeLease(this.name, this.nodeId, now, now + this.ttlMs);
  }

  /** A stopping node hands the job over at once instead of after the expiry. */
  async release(): Promise<void> {
    await this.queries.releaseLease(this.name, this.nodeId);
  }
}
