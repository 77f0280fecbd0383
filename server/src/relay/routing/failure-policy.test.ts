import { DEFAULT_DISABLE_CHANNEL_KEYWORDS, defaultOptionValues } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';
import {
  decideFailure,
  type FailurePolicyOptions,
  parseDisableKeywords,
  shouldAutoEnable,
  shouldDisableForLatency,
  type UpstreamFailure,
} from './failure-policy.js';

const defaults = defaultOptionValues();
const on: FailurePolicyOptions = {
  AutomaticDisableChannelEnabled: true,
  DisableChannelKeywords: defaults.DisableChannelKeywords,
  RetryCooldownSeconds: 5,
};
const off: FailurePolicyOptions = { ...on, AutomaticDisableChannelEnabled: false };

function failure(f: Partial<UpstreamFailure>): UpstreamFailure {
  return { status: 500, isTransportError: false, isTimeout: false, channelType: 1, ...f };
}

function decide(f: Partial<UpstreamFailure>, options = on) {
  return decideFailure(failure(f), options);
}

describe('decideFailure: retries', () => {
  it('retries and freezes on 429 but never disables, whatever the body says', () => {
    const d = decide({
      status: 429,
      body: {
        message: 'You exceeded your current quota',
        type: 'insufficient_quota',
        code: 'invalid_api_key',
      },
    });
    expect(d).toMatchObject({ retry: true, freeze: true, disable: false });
  });

  it.each([500, 502, 503, 520, 599])('retries and freezes on %i', (status) => {
    expect(decide({ status })).toMatchObject({ retry: true, freeze: true, disable: false });
  });

  it.each([307, 401, 403, 404, 409, 413, 422])('retries on any other non-2xx status such as %i', (status) => {
    expect(decide({ status }, off)).toMatchObject({ retry: true, freeze: true, disable: false });
  });

  it.each([408, 504, 524])('does not retry on the timeout status %i, but freezes', (status) => {
    expect(decide({ status })).toMatchObject({ retry: false, freeze: true, disable: false });
  });

  it('retries transport errors and freezes; does not disable on them', () => {
    expect(decide({ status: 0, isTransportError: true, body: { message: 'Permission denied' } })).toEqual({
      retry: true,
      freeze: true,
      disable: false,
      reason: 'could not reach the upstream',
    });
  });

  it('does not retry our own timeout, but freezes the slow channel', () => {
    expect(decide({ status: 0, isTimeout: true })).toMatchObject({
      retry: false,
      freeze: true,
      disable: false,
    });
  });

  it('neither retries, freezes nor disables a local error', () => {
    expect(decide({ status: 401, isLocal: true, body: { code: 'invalid_api_key' } })).toEqual({
      retry: false,
      freeze: false,
      disable: false,
      reason: 'local error',
    });
  });

  it('does not retry or freeze an ordinary 400 (the request is at fault)', () => {
    expect(decide({ status: 400, body: { message: "Invalid value for 'temperature'" } })).toMatchObject({
      retry: false,
      freeze: false,
      disable: false,
    });
  });

  it.each([
    ['Anthropic', 14, 'Your credit balance is too low to access the Anthropic API.'],
    ['Bedrock', 32, 'Operation not allowed'],
    ['Gemini', 25, 'API key not valid. Please pass a valid API key.'],
  ])('retries the %s 400 that blames the account', (_name, channelType, message) => {
    const d = decide({ status: 400, channelType, body: { message } }, off);
    expect(d).toMatchObject({ retry: true, freeze: true, disable: false });
  });

  it('matches those 400 messages in a non-JSON body and ignoring case', () => {
    expect(decide({ status: 400, text: 'API KEY NOT VALID' }, off).retry).toBe(true);
  });

  it('does not retry an error inside a 2xx reply', () => {
    expect(decide({ status: 200, body: { message: 'odd' } })).toMatchObject({ retry: false, freeze: false });
  });

  it('never freezes when RetryCooldownSeconds is 0', () => {
    const noCooldown = { ...on, RetryCooldownSeconds: 0 };
    expect(decide({ status: 429 }, noCooldown)).toMatchObject({ retry: true, freeze: false });
    expect(decide({ status: 401 }, noCooldown)).toMatchObject({ retry: true, freeze: false, disable: true });
  });
});

describe('decideFailure: automatic disable', () => {
  it('disables on 401', () => {
    expect(decide({ status: 401 })).toMatchObject({ disable: true, retry: true, freeze: true });
  });

  it('disables on 403 only for Gemini channels', () => {
    expect(decide({ status: 403, channelType: 25 }).disable).toBe(true);
    expect(decide({ status: 403, channelType: 1 }).disable).toBe(false);
  });

  it.each(['invalid_api_key', 'account_deactivated', 'billing_not_active'])('disables on code %s', (code) => {
    const d = decide({ status: 400, body: { code, message: 'x' } });
    expect(d.disable).toBe(true);
    expect(d.reason).toContain(code);
    // Disabling marks the channel as at fault, so it is frozen even for a 400 that is not retried.
    expect(d).toMatchObject({ retry: false, freeze: true });
  });

  it.each(['insufficient_quota', 'authentication_error', 'permission_error', 'forbidden'])(
    'disables on type %s',
    (type) => {
      expect(decide({ status: 402, body: { type } }).disable).toBe(true);
    },
  );

  it('disables on param PERMISSIONDENIED', () => {
    expect(decide({ status: 400, body: { param: 'PERMISSIONDENIED' } }).disable).toBe(true);
  });

  it('disables when the message contains any default keyword, ignoring case', () => {
    for (const keyword of DEFAULT_DISABLE_CHANNEL_KEYWORDS) {
      const message = `upstream said: ${keyword.toUpperCase()} (request id 1)`;
      const d = decide({ status: 500, body: { message } });
      expect(d.disable, keyword).toBe(true);
      expect(d.reason).toBe(`upstream message contains "${keyword.toLowerCase()}"`);
    }
  });

  it('uses the configured keyword list, one per line, blanks ignored', () => {
    const custom = { ...on, DisableChannelKeywords: '\n  Account Suspended  \r\n\nno more credit\n' };
    expect(decide({ status: 500, body: { message: 'your account suspended today' } }, custom).disable).toBe(
      true,
    );
    expect(decide({ status: 500, text: 'No More Credit' }, custom).disable).toBe(true);
    expect(decide({ status: 500, body: { message: 'Permission denied' } }, custom).disable).toBe(false);
    expect(
      decide({ status: 500, body: { message: 'anything' } }, { ...on, DisableChannelKeywords: '' }).disable,
    ).toBe(false);
  });

  it('does not disable anything while AutomaticDisableChannelEnabled is off', () => {
    for (const f of [
      { status: 401 },
      { status: 403, channelType: 25 },
      { status: 400, body: { code: 'invalid_api_key' } },
      { status: 500, body: { message: 'Permission denied' } },
    ]) {
      expect(decide(f, off).disable).toBe(false);
    }
  });

  it('does not disable on an ordinary server error', () => {
    expect(decide({ status: 500, body: { message: 'internal error', type: 'server_error' } }).disable).toBe(
      false,
    );
  });

  it('accepts numeric codes without crashing', () => {
    expect(decide({ status: 500, body: { code: 1008, message: 'x' } }).disable).toBe(false);
  });
});

describe('parseDisableKeywords', () => {
  it('lowercases, trims and drops blank lines', () => {
    expect(parseDisableKeywords(' A \r\n\nb\n')).toEqual(['a', 'b']);
  });
});

describe('shouldDisableForLatency', () => {
  const opts = { ChannelDisableThreshold: 5, AutomaticDisableChannelEnabled: true };

  it('disables above the threshold only', () => {
    expect(shouldDisableForLatency(5_000, opts)).toBe(false);
    expect(shouldDisableForLatency(5_001, opts)).toBe(true);
  });

  it('never disables with a threshold of 0', () => {
    expect(shouldDisableForLatency(1_000_000, { ...opts, ChannelDisableThreshold: 0 })).toBe(false);
  });

  it('respects auto-disable being off, which the test-all of one-hub ignores', () => {
    expect(shouldDisableForLatency(60_000, { ...opts, AutomaticDisableChannelEnabled: false })).toBe(false);
  });

  it('handles fractional thresholds', () => {
    expect(shouldDisableForLatency(2_600, { ...opts, ChannelDisableThreshold: 2.5 })).toBe(true);
  });
});

describe('shouldAutoEnable', () => {
  const opts = { AutomaticEnableChannelEnabled: true, ChannelDisableThreshold: 5 };

  it('re-enables an auto-disabled channel after a fast, successful test', () => {
    expect(shouldAutoEnable(3, true, 1_200, opts)).toBe(true);
  });

  it('never re-enables a manually disabled, enabled or unknown-status channel', () => {
    expect(shouldAutoEnable(2, true, 100, opts)).toBe(false);
    expect(shouldAutoEnable(1, true, 100, opts)).toBe(false);
    expect(shouldAutoEnable(0, true, 100, opts)).toBe(false);
  });

  it('needs the test to pass, within the threshold', () => {
    expect(shouldAutoEnable(3, false, 100, opts)).toBe(false);
    expect(shouldAutoEnable(3, true, 5_001, opts)).toBe(false);
    expect(shouldAutoEnable(3, true, 60_000, { ...opts, ChannelDisableThreshold: 0 })).toBe(true);
  });

  it('does nothing while AutomaticEnableChannelEnabled is off', () => {
    expect(shouldAutoEnable(3, true, 100, { ...opts, AutomaticEnableChannelEnabled: false })).toBe(false);
  });
});

describe('decideFailure: answers the endpoint does not define', () => {
  it('retries and freezes a redirect, a 204 or an undecodable body, and never disables for one', () => {
    for (const status of [204, 301, 307, 0]) {
      const d = decide({
        status,
        unusableReply: `upstream answered ${status}, not an answer of this endpoint`,
        // A keyword in the text must not disable a channel whose reply was merely unreadable.
        text: 'account deactivated',
      });
      expect(d).toMatchObject({ retry: true, freeze: true, disable: false });
      expect(d.reason).toContain(String(status));
    }
    // Without the mark, an error inside a 2xx reply is still not retried.
    expect(decide({ status: 200 })).toMatchObject({ retry: false, freeze: false });
  });
});
