import { describe, expect, it } from 'vitest';
import { resolveBasePath, withBase } from './base-path';

describe('resolveBasePath', () => {
  it('prefers the value the server injected', () => {
    expect(resolveBasePath('/console/', './')).toBe('/console');
    expect(resolveBasePath('console', '/')).toBe('/console');
    expect(resolveBasePath('/', '/other/')).toBe('/');
  });

  it('falls back to an absolute BASE_URL, and a relative one means the root', () => {
    expect(resolveBasePath(undefined, '/app/')).toBe('/app');
    expect(resolveBasePath('  ', '/')).toBe('/');
    expect(resolveBasePath(undefined, './')).toBe('/');
  });
});

describe('withBase', () => {
  it('joins paths without doubling slashes', () => {
    expect(withBase('/api/status', '/')).toBe('/api/status');
    expect(withBase('/api/status', '/console')).toBe('/console/api/status');
    expect(withBase('oauth/lark', '/console')).toBe('/console/oauth/lark');
  });
});
