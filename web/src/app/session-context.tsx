import { isAdminRole } from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { isRecord, readJson, readText, StorageKey, writeJson, writeText } from '../lib/storage';
import { endServerSession, onUnauthorized } from './session-api';
import { isThemeMode, type ThemeMode } from './theme';

// Session and UI preferences. Server state stays in TanStack Query; this holds only the client copy
// of the signed-in user and the choices saved under one-hub's local-storage keys.

/** The client copy of the signed-in user (role, username and avatar_url are what is read). */
export interface SessionUser {
  id: number;
  username: string;
  display_name?: string;
  role: number;
  status?: number;
  avatar_url?: string;
}

export function isSessionUser(value: unknown): value is SessionUser {
  return (
    isRecord(value) &&
    typeof value.id === 'number' &&
    typeof value.username === 'string' &&
    typeof value.role === 'number'
  );
}

/** Keeps only the fields the console reads, so nothing else the server sends lands in local storage. */
export function toSessionUser(user: SessionUser): SessionUser {
  const { id, username, display_name, role, status, avatar_url } = user;
  return { id, username, display_name, role, status, avatar_url };
}

/** The same fields toSessionUser keeps, the same values. */
function sameSessionUser(a: SessionUser, b: SessionUser): boolean {
  return (Object.keys(b) as (keyof SessionUser)[]).every((k) => a[k] === b[k]);
}

interface SessionValue {
  user: SessionUser | null;
  isAdmin: boolean;
  signIn: (user: SessionUser) => void;
  signOut: () => Promise<void>;
  themeMode: ThemeMode;
  toggleTheme: () => void;
  sidebarOpen: boolean;
  setSidebarOpen: (open: boolean) => void;
}

const SessionContext = createContext<SessionValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [user, setUser] = useState<SessionUser | null>(() => readJson(StorageKey.user, isSessionUser));
  const [themeMode, setThemeMode] = useState<ThemeMode>(() => {
    const saved = readText(StorageKey.theme);
    return isThemeMode(saved) ? saved : 'light';
  });
  const [sidebarOpen, setSidebarOpen] = useState(true);

  // Forget the user and every cached answer that belonged to the session.
  const endSession = useCallback(() => {
    writeText(StorageKey.user, null);
    setUser(null);
    queryClient.removeQueries({ queryKey: ['user'] });
  }, [queryClient]);

  // Any 401 ends the session (the protected view then sends the visitor to /login).
  useEffect(() => onUnauthorized(endSession), [endSession]);

  const signIn = useCallback((next: SessionUser) => {
    const stored = toSessionUser(next);
    writeJson(StorageKey.user, stored);
    // The same user again (every panel visit refreshes it) keeps the session value, so nothing re-renders.
    setUser((current) => (current !== null && sameSessionUser(current, stored) ? current : stored));
  }, []);

  const signOut = useCallback(async () => {
    try {
      await endServerSession();
    } finally {
      endSession();
    }
  }, [endSession]);

  const toggleTheme = useCallback(() => {
    const next = themeMode === 'light' ? 'dark' : 'light';
    writeText(StorageKey.theme, next);
    setThemeMode(next);
  }, [themeMode]);

  const value = useMemo<SessionValue>(
    () => ({
      user,
      isAdmin: user !== null && isAdminRole(user.role),
      signIn,
      signOut,
      themeMode,
      toggleTheme,
      sidebarOpen,
      setSidebarOpen,
    }),
    [user, signIn, signOut, themeMode, toggleTheme, sidebarOpen],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession needs a SessionProvider');
  return value;
}
