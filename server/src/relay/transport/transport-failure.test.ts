import { describe, expect, it } from 'vitest';
import { describeTransportFailure, PRIVATE_CA_HINT } from './transport-failure.js';

const err = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('describeTransportFailure', () => {
  it('names the certificate check that failed, with the way to trust a private CA where it helps', () => {
    const untrusted = describeTransportFailure(err('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'));
    expect(untrusted.code).toBe('upstream_tls_untrusted');
    expect(untrusted.message).toContain('self-signed certificate');
    expect(untrusted.message).toContain(PRIVATE_CA_HINT);
    expect(describeTransportFailure(err('UNABLE_TO_GET_ISSUER_CERT_LOCALLY')).code).toBe(
      'upstream_tls_untrusted',
    );
    expect(
      describeTransportFailure(err('ERR_TLS_CERT_ALTNAME_INVALID', "Host: a. is not in the cert's altnames")),
    ).toMatchObject({
      code: 'upstream_tls_hostname',
      message: expect.stringContaining('does not match its host name'),
    });
    expect(describeTransportFailure(err('CERT_HAS_EXPIRED')).message).toContain('has expired');
    expect(describeTransportFailure(err('CERT_NOT_YET_VALID')).message).toContain('is not valid yet');
  });

  it('tells the waits apart: a connect timeout may be retried, a reply that stopped may not', () => {
    expect(describeTransportFailure(err('UND_ERR_CONNECT_TIMEOUT'))).toMatchObject({
      code: 'upstream_connect_timeout',
      timedOut: false,
    });
    expect(describeTransportFailure(err('UND_ERR_HEADERS_TIMEOUT'))).toMatchObject({
      code: 'upstream_timeout',
      timedOut: true,
    });
    expect(describeTransportFailure(err('UND_ERR_BODY_TIMEOUT')).timedOut).toBe(true);
    expect(describeTransportFailure(err('ECONNREFUSED'))).toMatchObject({
      code: 'upstream_unreachable',
      message: 'The upstream provider could not be reached (ECONNREFUSED)',
    });
    expect(describeTransportFailure(undefined).code).toBe('upstream_unreachable');
  });
});
