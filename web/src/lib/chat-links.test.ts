import { DEFAULT_CHAT_LINKS } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';
import { fillChatLink, serverAddress, visibleChatLinks } from './chat-links';

describe('chat links', () => {
  it('offers the two shown defaults, in sort order, when nothing is configured', () => {
    const shown = visibleChatLinks('');
    expect(DEFAULT_CHAT_LINKS).toHaveLength(4);
    expect(shown.map((l) => l.sort)).toEqual([1, 2]);
    expect(shown.map((l) => l.name)).toEqual(DEFAULT_CHAT_LINKS.slice(0, 2).map((l) => l.name));
  });

  it('uses the configured list: hidden entries left out, sorted by sort', () => {
    const json = JSON.stringify([
      { name: 'B', url: 'b', show: true, sort: 5 },
      { name: 'Hidden', url: 'h', show: false, sort: 0 },
      { name: 'A', url: 'a', show: true, sort: 2 },
      { name: 'broken' },
    ]);
    expect(visibleChatLinks(json).map((l) => l.name)).toEqual(['A', 'B']);
  });

  it('falls back to the defaults when the setting is not JSON', () => {
    expect(visibleChatLinks('{oops').map((l) => l.sort)).toEqual([1, 2]);
  });

  it('fills {key} without the sk- prefix and {server} without a trailing slash', () => {
    expect(fillChatLink('x?k=sk-{key}&u={server}/v1&again={key}', 'sk-abc', 'https://gw.example/')).toBe(
      'x?k=sk-abc&u=https://gw.example/v1&again=abc',
    );
  });

  it('prefers the configured server address over the page origin', () => {
    expect(serverAddress(' https://api.example.com/ ', 'http://localhost:3000')).toBe(
      'https://api.example.com',
    );
    expect(serverAddress('', 'http://localhost:3000')).toBe('http://localhost:3000');
  });

  it('takes the page origin while the option still holds its shipped placeholder', () => {
    expect(serverAddress('http://localhost:3000', 'https://gw.example.com')).toBe('https://gw.example.com');
    expect(serverAddress('http://localhost:3000/', 'https://gw.example.com/')).toBe('https://gw.example.com');
  });
});
