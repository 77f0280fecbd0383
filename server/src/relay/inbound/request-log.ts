import type { FastifyBaseLogger } from 'fastify';

type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
type LogArgs = [unknown, ...unknown[]];

/**
 * A call's logger, bound to its request id. The pino child that carries the id is made for the
 * first line logged: at the default level most calls log nothing, and making one costs about a
 * microsecond (pino serialises the bindings up front). It holds the app's logger and the id, never
 * the request: the pending settlement keeps it until the ledger thread answers.
 */
export class RequestLog implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly reqId: string,
  ) {}

  get level(): string {
    return (this.made ?? this.parent).level;
  }
  set level(level: string) {
    this.bound().level = level;
  }
  fatal(...args: LogArgs): void {
    this.write('fatal', args);
  }
  error(...args: LogArgs): void {
    this.write('error', args);
  }
  warn(...args: LogArgs): void {
    this.write('warn', args);
  }
  info(...args: LogArgs): void {
    this.write('info', args);
  }
  debug(...args: LogArgs): void {
    this.write('debug', args);
  }
  trace(...args: LogArgs): void {
    this.write('trace', args);
  }
  silent(...args: LogArgs): void {
    this.write('silent', args);
  }
  child(...args: Parameters<FastifyBaseLogger['child']>): FastifyBaseLogger {
    return this.bound().child(...args);
  }

  private bound(): FastifyBaseLogger {
    this.made ??= this.parent.child({ reqId: this.reqId });
    return this.made;
  }

  private write(level: LogLevel, args: LogArgs): void {
    const log = this.bound();
    (log[level] as (...a: LogArgs) => void).apply(log, args);
  }
}
