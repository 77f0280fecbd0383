// What went wrong when an upstream gave no usable reply, in words for the client, the log and the
// channel test: a certificate the gateway cannot verify says which check failed and how to trust
// a private CA, a timeout says which wait ran out.

export interface TransportFailure {
  /** Stable code for the client's error. */
  code: string;
  /** For the client: names what failed, never the upstream's host. */
  message: string;
  /** For the log and the channel test (administrators): the underlying error's own words. */
  detail: string;
  /** A wait for the upstream ran out after the request was sent: it may still be working on it. */
  timedOut: boolean;
}

export const PRIVATE_CA_HINT =
  'To trust a private CA, start the gateway with NODE_EXTRA_CA_CERTS=/path/to/ca.pem, or put the CA certificate (PEM) in the channel\'s plugin setting "upstream.ca"';

const EXPIRY = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED',
  'INVALID_CA',
  'CERT_CHAIN_TOO_LONG',
]);

export function describeTransportFailure(err: unknown): TransportFailure {
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const detail = typeof e.message === 'string' ? e.message : String(err);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      code: 'upstream_tls_hostname',
      message: "The upstream's TLS certificate does not match its host name",
      detail,
      timedOut: false,
    };
  }
  if (EXPIRY.has(code)) {
    const when = code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet';
    return {
      code: 'upstream_tls_expired',
      message: `The upstream's TLS certificate ${when} (${code})`,
      detail,
      timedOut: false,
    };
  }
  if (UNTRUSTED.has(code)) {
    return {
      code: 'upstream_tls_untrusted',
      message: `The upstream's TLS certificate could not be verified: ${detail} (${code}). ${PRIVATE_CA_HINT}`,
      detail,
      timedOut: false,
    };
  }
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return {
        code: 'upstream_connect_timeout',
        message: 'The upstream provider did not accept a connection in time',
        detail,
        timedOut: false,
      };
    case 'UND_ERR_HEADERS_TIMEOUT':
      return {
        code: 'upstream_timeout',
        message: 'The upstream provider did not start its answer in time',
        detail,
        timedOut: true,
      };
    case 'UND_ERR_BODY_TIMEOUT':
      return {
        code: 'upstream_timeout',
        message: 'The upstream provider stopped sending its answer',
        detail,
        timedOut: true,
      };
    case 'ERR_OUTBOUND_REFUSED':
      // The address stays in the detail (log, channel test): the client learns only the rule.
      return {
        code: 'upstream_address_refused',
        message: "The upstream's address is refused by the gateway's outbound policy",
        detail,
        timedOut: false,
      };
    case 'ERR_OUTBOUND_PROXY':
      return {
        code: 'upstream_proxy_invalid',
        message: "The channel's proxy setting cannot be used",
        detail,
        timedOut: false,
      };
    case 'UPSTREAM_BAD_ENCODING':
    case 'UPSTREAM_UNKNOWN_ENCODING':
      return { code: 'upstream_bad_encoding', message: detail, detail, timedOut: false };
    default:
      break;
  }
  return {
    code: 'upstream_unreachable',
    message: `The upstream provider could not be reached${code ? ` (${code})` : ''}`,
    detail,
    timedOut: false,
  };
}
