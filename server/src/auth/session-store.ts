import { createHash, randomBytes } from 'node:crypto';
import type { SessionsQueries } from '../db/queries/sessions.js';

export interface SessionInfo {
  userId: number;
  expiresAt: number;
}

export interface SessionMeta {
  ip: string;
  userAgent: string;
}

/**
 * Server-side sessions. The cookie carries only a random id; the store keeps a hash of it, so a
 * leaked database or Redis dump cannot be replayed as a cookie. Every request re-reads the user,
 * so a ban, deletion or role change applies on the next request.
 */
export interface SessionStore {
  create(userId: number, meta: SessionMeta): Promise<string>;
  get(sessionId: string): Promise<SessionInfo | undefined>;
  destroy(sessionId: string): Promise<void>;
  destroyAllForUser(userId: number): Promise<void>;
  close(): Promise<void>;
}

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

const TOUCH_EVERY_SECONDS = 3600;

export class DbSessionStore implements SessionStore {
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly sessions: SessionsQueries,
    private readonly ttlSeconds: number,
    private readonly nowSeconds: () => number,
  ) {
    this.sweeper = setInterval(
      () => void this.sessions.deleteExpired(this.nowSeconds()).catch(() => {}),
      3600_000,
    );
    this.sweeper.unref();
  }

  async create(userId: number, meta: SessionMeta) {
    const id = newSessionId();
    const now = this.nowSeconds();
    await this.sessions.insert({
      id_hash: hashSessionId(id),
      user_id: userId,
      created_at: now,
      expires_at: now + this.ttlSeconds,
      last_seen_at: now,
      ip: meta.ip.slice(0, 128),
      user_agent: meta.userAgent.slice(0, 190),
    });
    return id;
  }

  async get(sessionId: string) {
    const now = this.nowSeconds();
    const hash = hashSessionId(sessionId);
    const row = await this.sessions.byIdHash(hash, now);
    if (!row) return undefined;
    // Sliding expiry, written at most hourly so reads stay reads.
    if (now - row.last_seen_at >= TOUCH_EVERY_SECONDS) {
      await this.sessions.touch(hash, now, now + this.ttlSeconds);
      return { userId: row.user_id, expiresAt: now + this.ttlSeconds };
    }
    return { userId: row.user_id, expiresAt: row.expires_at };
  }

  async destroy(sessionId: string) {
    await this.sessions.delete(hashSessionId(sessionId));
  }

  async destroyAllForUser(userId: number) {
    await this.sessions.deleteForUser(userId);
  }

  async close() {
    clearInterval(this.sweeper);
  }
}
