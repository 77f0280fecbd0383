import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiGet } from '../lib/api-client';
import { SessionProvider, useSession } from './session-context';

vi.mock('../lib/toast', () => ({ toast: { error: vi.fn(), info: vi.fn() } }));

let session: ReturnType<typeof useSession>;
function Probe() {
  session = useSession();
  return <output>{session.user?.username ?? '-'}</output>;
}

function mount() {
  const client = new QueryClient();
  render(
    <QueryClientProvider client={client}>
      <SessionProvider>
        <Probe />
      </SessionProvider>
    </QueryClientProvider>,
  );
  return client;
}

describe('SessionProvider', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('restores the saved user and keeps only the fields it reads', () => {
    localStorage.setItem('user', JSON.stringify({ id: 3, username: 'amy', role: 10 }));
    mount();
    expect(screen.getByRole('status').textContent).toBe('amy');
    expect(session.isAdmin).toBe(true);
    act(() => session.signIn({ id: 4, username: 'bob', role: 1, access_token: 'secret' } as never));
    expect(JSON.parse(localStorage.getItem('user') ?? '{}')).toEqual({ id: 4, username: 'bob', role: 1 });
    expect(session.isAdmin).toBe(false);
  });

  it('keeps the session value when the same user signs in again, and takes a changed one', () => {
    localStorage.setItem('user', JSON.stringify({ id: 3, username: 'amy', role: 1 }));
    mount();
    const before = session;
    act(() => session.signIn({ id: 3, username: 'amy', role: 1, quota: 5 } as never));
    expect(session).toBe(before);
    act(() => session.signIn({ id: 3, username: 'amy', role: 1, display_name: 'Amy' }));
    expect(session).not.toBe(before);
    expect(session.user?.display_name).toBe('Amy');
  });

  it('ignores a corrupt saved user', () => {
    localStorage.setItem('user', '{"username": 5');
    mount();
    expect(session.user).toBeNull();
  });

  it('ends the session on any 401 and forgets the user-scoped answers', async () => {
    localStorage.setItem('user', JSON.stringify({ id: 3, username: 'amy', role: 1 }));
    const client = mount();
    client.setQueryData(['user', 'self'], { id: 3 });
    client.setQueryData(['status'], { version: '0.14.9' });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('{"success":false,"message":"no"}', { status: 401 })),
    );
    await act(async () => {
      await apiGet('/api/token/').catch(() => undefined);
    });
    expect(screen.getByRole('status').textContent).toBe('-');
    expect(localStorage.getItem('user')).toBeNull();
    expect(client.getQueryData(['user', 'self'])).toBeUndefined();
    expect(client.getQueryData(['status'])).toBeDefined();
  });

  it('saves the theme choice', () => {
    mount();
    expect(session.themeMode).toBe('light');
    act(() => session.toggleTheme());
    expect(session.themeMode).toBe('dark');
    expect(localStorage.getItem('theme')).toBe('dark');
  });
});
