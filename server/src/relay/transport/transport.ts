// The transport as the rest of the gateway sees it: how a call reaches an upstream and how its reply
// comes back. The modules beside this one are its inside; everything else imports from here.
export { Http1Upstream } from './http1-upstream.js';
export { InFlight } from './in-flight.js';
export { describeTransportFailure } from './transport-failure.js';
export { TurnEnd } from './turn-end.js';
export {
  CallCancel,
  type ConnectionSettings,
  decodedReply,
  ReadBody,
  sendUpstream,
  type UpstreamBody,
  type UpstreamDispatcher,
  type UpstreamReply,
  type UpstreamTimeouts,
} from './upstream-dispatch.js';
