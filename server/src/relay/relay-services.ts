import type { Ledger } from '../billing/ledger/ledger.js';
import type { QuotaReminder } from '../billing/quota-reminder.js';
import type { TokenBucket } from '../cache/token-bucket.js';
import type { ImageFetcher } from '../outbound/image-fetch.js';
import type { OutboundAgent } from '../outbound/outbound-agent.js';
import type { TokenCounter } from '../providers/token-counter.js';
import type { VertexTokenCache } from '../providers/vertex/access-token.js';
import type { ZhipuTokenCache } from '../providers/zhipu/token.js';
import type { ChannelAccessCache } from './channels/channel-access-cache.js';
import type { RelayAuthenticator } from './inbound/token-auth.js';
import type { RelayTables } from './relay-tables.js';
import type { SafeKeywordCheck } from './request-policies/safe-keywords.js';
import type { ChannelHealth } from './routing/channel-health.js';
import type { ChannelSelector } from './routing/channel-selector.js';
import type { InFlight, TurnEnd, UpstreamDispatcher } from './transport/transport.js';

/** What the /v1 pipeline needs beyond the common services; wired in main.ts. */
export interface RelayServices {
  tables: RelayTables;
  auth: RelayAuthenticator;
  selector: ChannelSelector;
  health: ChannelHealth;
  ledger: Ledger;
  counter: TokenCounter;
  bucket: TokenBucket;
  /** Channels' decrypted keys and parsed settings, per routing-table entry. */
  access: ChannelAccessCache;
  /**
   * Keep-alive connection pools to the upstreams (undici) under the outbound policy, direct or
   * through a channel's proxy: model lists, balances, uploads, proxied calls.
   */
  upstream: OutboundAgent;
  /** Image URLs fetched for upstreams that need the bytes inline (Gemini). */
  images: ImageFetcher;
  /** The relay's own keep-alive client for the calls it forwards; hands anything else to `upstream`. */
  forward: UpstreamDispatcher;
  /** Writes (upstream requests, replies) and settlements held until the end of the turn of the event loop. */
  turnEnd: TurnEnd;
  /** Settlements started and not yet committed; graceful shutdown and tests wait on these. */
  pending: InFlight;
  /** The background "test all channels" run (one at a time per process). */
  testRun: ChannelTestRunner;
  /** Vertex AI access tokens per service account (exchanged once, refreshed before expiry). */
  vertexTokens: VertexTokenCache;
  /** Zhipu signed tokens per key. */
  zhipuTokens: ZhipuTokenCache;
  /** The SafeKeyWords automaton, rebuilt when the option changes. */
  safety: SafeKeywordCheck;
  /** QuotaRemindThreshold mails, from the balances settlements leave. */
  quotaReminder: QuotaReminder;
}

/** The background "test all channels" run (ChannelTestRun of channels/channel-tester.ts), as its users see it. */
export interface ChannelTestRunner {
  readonly busy: boolean;
  /** False when a run is already going. */
  start(onError: (err: unknown) => void): boolean;
  /** Waits for the current run, if any (tests and shutdown). */
  settled(): Promise<void>;
}
