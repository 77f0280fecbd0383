import type { Access } from '@switchyard/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodType } from 'zod';
import type { Caller } from '../auth/authenticate.js';
import type { Services } from '../services.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Per-IP limits: `critical` guards sign-in, sign-up and reset; `exempt` skips the per-IP limit for
 * a caller that is one service speaking for many users (Telegram's webhook).
 */
export type RateClass = 'critical' | 'exempt';

export interface RouteContext<B, Q, P> {
  s: Services;
  /** The signed-in user, or null on a guest route with nobody signed in. */
  caller: Caller | null;
  body: B;
  query: Q;
  params: P;
  ip: string;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** What a handler returns: the `data` of the envelope, optionally with a message. */
export type HandlerResult = unknown;

export interface RouteDef<B = unknown, Q = unknown, P = unknown> {
  method: Method;
  url: string;
  /** The least role that may call it; the policy matrix test walks every entry. */
  access: Access;
  rateLimit?: RateClass;
  /**
   * The body arrives as the request's bytes (a Buffer, any content type), for callbacks whose
   * signature covers them; no body schema then.
   */
  rawBody?: true;
  body?: ZodType<B>;
  query?: ZodType<Q>;
  params?: ZodType<P>;
  handler(ctx: RouteContext<B, Q, P>): Promise<HandlerResult>;
}

/** Keeps the body/query/params types of one route tied to its schemas. */
export function route<B = undefined, Q = undefined, P = undefined>(def: RouteDef<B, Q, P>): RouteDef {
  return def as unknown as RouteDef;
}

/** A handler result carrying a message besides the data (e.g. OAuth's "bind"). */
export class WithMessage {
  constructor(
    readonly data: unknown,
    readonly message: string,
  ) {}
}
