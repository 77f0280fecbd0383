import type { Server, ServerResponse } from 'node:http';

/** How often a draining server closes the kept-alive connections that went idle since. */
const IDLE_SWEEP_MS = 100;

/**
 * A node that is stopping. From `begin` its readiness answers false, and every request it still
 * receives (on a connection kept alive from before) is answered with `Connection: close`, so the
 * client or proxy takes its next request elsewhere; connections that finished a reply kept alive
 * are closed as soon as they are idle. Calls in flight run on.
 */
export class Drain {
  #draining = false;
  #sweep: NodeJS.Timeout | undefined;

  get draining(): boolean {
    return this.#draining;
  }

  /** Called for every request before it is served (the relay's hot path included). */
  mark(res: ServerResponse): void {
    if (this.#draining) res.shouldKeepAlive = false;
  }

  begin(server: Server): void {
    if (this.#draining) return;
    this.#draining = true;
    server.closeIdleConnections();
    this.#sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    this.#sweep.unref();
  }

  /** The drain is over (every connection closed, or cut): stops sweeping. */
  end(): void {
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = undefined;
  }
}
