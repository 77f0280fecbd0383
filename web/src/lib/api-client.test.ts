import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../i18n';
import { apiGet, apiPost, buildUrl, hasNewVersion, onUnauthorized } from './api-client';
import { ApiError, describeError } from './api-error';
import { toast } from './toast';

vi.mock('./toast', () => ({
  toast: {
    error: vi.fn(),
    info: vi.fn(),
    warning: vi.fn(),
    success: vi.fn(),
    notice: vi.fn(),
    copy: vi.fn(),
  },
}));

function respond(status: number, body: unknown) {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  return vi.fn(async () => new Response(text, { status }));
}

describe('describeError', () => {
  const t = i18n.t;

  it('maps the fixed statuses to the texts of one-hub', () => {
    expect(describeError(new ApiError(429, ''), t)).toEqual({
      variant: 'error',
      text: '错误：请求次数过多，请稍后再试！',
    });
    expect(describeError(new ApiError(500, 'boom'), t)).toEqual({
      variant: 'error',
      text: '错误：服务器内部错误，请联系管理员！',
    });
    expect(describeError(new ApiError(405, ''), t)).toEqual({
      variant: 'info',
      text: '本站仅作演示之用，无服务端！',
    });
  });

  it('prefixes the server message of any other HTTP error, and the text of a non-HTTP error', () => {
    expect(describeError(new ApiError(403, '权限不足'), t).text).toBe('错误：权限不足');
    expect(describeError(new ApiError(400, 'name is required', 'invalid_request'), t).text).toBe(
      '错误：name is required',
    );
    expect(describeError(new TypeError('x is undefined'), t).text).toBe('错误：x is undefined');
    expect(describeError('plain text', t).text).toBe('错误：plain text');
    expect(describeError(new ApiError(404, ''), t).text).toBe('错误：未知错误');
  });

  it('says what a known error code means in the interface language', () => {
    expect(
      describeError(new ApiError(401, 'Invalid username or password', 'invalid_credentials'), t).text,
    ).toBe('错误：用户名或密码错误，或用户已被封禁');
    expect(describeError(new ApiError(409, 'This username is already taken', 'username_taken'), t).text).toBe(
      '错误：用户名已存在',
    );
    // Redemption, the flow a new user meets first.
    expect(describeError(new ApiError(400, 'Invalid redemption code', 'redemption_invalid'), t).text).toBe(
      '错误：兑换码无效',
    );
    expect(
      describeError(new ApiError(409, 'This redemption code has already been used', 'redemption_used'), t)
        .text,
    ).toBe('错误：该兑换码已被使用');
  });

  it('says the server is unreachable when no answer came back', () => {
    expect(describeError(new ApiError(0, 'Failed to fetch'), t).text).toBe('无法正常连接至服务器！');
  });

  it('follows the interface language', async () => {
    await i18n.changeLanguage('en_US');
    expect(describeError(new ApiError(0, ''), i18n.t).text).toBe('Unable to connect to the server properly!');
    expect(describeError(new ApiError(409, 'taken'), i18n.t).text).toBe('Error: taken');
  });
});

describe('request', () => {
  beforeEach(() => vi.clearAllMocks());
  afterEach(() => vi.unstubAllGlobals());

  it('unwraps the data of a successful envelope and sends JSON with the cookie', async () => {
    const fetchMock = respond(200, { success: true, message: '', data: { id: 7 } });
    vi.stubGlobal('fetch', fetchMock);
    await expect(apiPost('/api/user/login', { username: 'a', password: 'b' })).resolves.toEqual({ id: 7 });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/user/login');
    expect(init.credentials).toBe('same-origin');
    expect(init.body).toBe('{"username":"a","password":"b"}');
    expect(toast.error).not.toHaveBeenCalled();
  });

  it('treats success:false as a failure even with HTTP 200', async () => {
    vi.stubGlobal('fetch', respond(200, { success: false, message: '无效的参数' }));
    await expect(apiGet('/api/x')).rejects.toMatchObject({ status: 200, message: '无效的参数' });
    expect(toast.error).toHaveBeenCalledWith('错误：无效的参数');
  });

  it('shows the 429 text for a bare 429 and the 500 text for a 500', async () => {
    vi.stubGlobal('fetch', respond(429, undefined));
    await expect(apiGet('/api/x')).rejects.toBeInstanceOf(ApiError);
    vi.stubGlobal('fetch', respond(500, '<html>bad gateway</html>'));
    await expect(apiGet('/api/x')).rejects.toBeInstanceOf(ApiError);
    expect(vi.mocked(toast.error).mock.calls).toEqual([
      ['错误：请求次数过多，请稍后再试！'],
      ['错误：服务器内部错误，请联系管理员！'],
    ]);
  });

  it('shows 405 as information', async () => {
    vi.stubGlobal('fetch', respond(405, undefined));
    await expect(apiGet('/api/x')).rejects.toBeInstanceOf(ApiError);
    expect(toast.info).toHaveBeenCalledWith('本站仅作演示之用，无服务端！');
  });

  it('ends the session on a 401, even for a silent call', async () => {
    window.localStorage.setItem('user', '{"id":1}');
    const listener = vi.fn();
    const off = onUnauthorized(listener);
    vi.stubGlobal('fetch', respond(401, { success: false, message: '未登录', code: 'not_logged_in' }));
    await expect(apiGet('/api/user/self', { silent: true })).rejects.toMatchObject({
      status: 401,
      code: 'not_logged_in',
    });
    off();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(window.localStorage.getItem('user')).toBeNull();
    expect(toast.error).not.toHaveBeenCalled();
  });

  it('reports an unreachable server', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    await expect(apiGet('/api/status')).rejects.toMatchObject({ status: 0 });
    expect(toast.error).toHaveBeenCalledWith('无法正常连接至服务器！');
  });

  it('stays quiet when the caller aborted', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new DOMException('aborted', 'AbortError');
      }),
    );
    await expect(apiGet('/api/status')).rejects.toBeInstanceOf(DOMException);
    expect(toast.error).not.toHaveBeenCalled();
  });
});

describe('buildUrl', () => {
  it('drops empty query values and encodes the rest', () => {
    expect(buildUrl('/api/oauth/github', { code: 'a b', state: 'x', aff: undefined, n: null })).toBe(
      '/api/oauth/github?code=a+b&state=x',
    );
    expect(buildUrl('/api/status')).toBe('/api/status');
  });
});

describe('hasNewVersion', () => {
  it('flags a different server version but ignores v0.0.0 and empty', () => {
    expect(hasNewVersion('v0.15.0', '0.14.9')).toBe(true);
    expect(hasNewVersion('0.14.9', '0.14.9')).toBe(false);
    expect(hasNewVersion('v0.14.9', '0.14.9')).toBe(false);
    expect(hasNewVersion('v0.0.0', '0.14.9')).toBe(false);
    expect(hasNewVersion('', '0.14.9')).toBe(false);
    expect(hasNewVersion(undefined, '0.14.9')).toBe(false);
  });
});
