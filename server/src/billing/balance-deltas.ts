// Balance changes of one group-commit batch, summed per user, token and channel so the batch runs
// one UPDATE per row it touches instead of one per settlement. Only changes that are pure additions
// go through here: nothing in the batch reads these rows until the sums are applied (a caller that
// needs to read a row takes its pending sums out first).

export interface UserDelta {
  /** Added to `quota` (negative = taken). */
  change: number;
  /** Added to `used_quota`. */
  used: number;
  /** Added to `request_count`. */
  requests: number;
}

export interface TokenDelta {
  /** Added to `remain_quota`: always 0 for an unlimited token. */
  change: number;
  /** Added to `used_quota`. */
  used: number;
}

export interface DeltaSink {
  user(id: number, delta: UserDelta): void;
  token(id: number, delta: TokenDelta): void;
  channel(id: number, used: number): void;
}

export class BalanceDeltas {
  private readonly users = new Map<number, UserDelta>();
  private readonly tokens = new Map<number, TokenDelta>();
  private readonly channels = new Map<number, number>();

  addUser(id: number, change: number, used: number, requests: number): void {
    const d = this.users.get(id);
    if (d) {
      d.change += change;
      d.used += used;
      d.requests += requests;
    } else this.users.set(id, { change, used, requests });
  }

  addToken(id: number, change: number, used: number): void {
    const d = this.tokens.get(id);
    if (d) {
      d.change += change;
      d.used += used;
    } else this.tokens.set(id, { change, used });
  }

  addChannel(id: number, used: number): void {
    this.channels.set(id, (this.channels.get(id) ?? 0) + used);
  }

  /** Applies and forgets what is pending for one user and one token (before they are read). */
  applyFor(userId: number, tokenId: number, sink: DeltaSink): void {
    const u = this.users.get(userId);
    if (u) {
      this.users.delete(userId);
      sink.user(userId, u);
    }
    const t = this.tokens.get(tokenId);
    if (t) {
      this.tokens.delete(tokenId);
      sink.token(tokenId, t);
    }
  }

  /** Applies and forgets everything: users before tokens, like every other write of the ledger. */
  applyAll(sink: DeltaSink): void {
    for (const [id, d] of this.users) sink.user(id, d);
    for (const [id, d] of this.tokens) sink.token(id, d);
    for (const [id, used] of this.channels) sink.channel(id, used);
    this.clear();
  }

  clear(): void {
    this.users.clear();
    this.tokens.clear();
    this.channels.clear();
  }
}
