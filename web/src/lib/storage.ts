// The local-storage keys (one-hub's names). Reads never throw: a corrupt or missing value gives the
// fallback, and a browser that refuses storage (private mode, quota) only loses persistence.

export const StorageKey = {
  user: 'user',
  siteInfo: 'siteInfo',
  quotaPerUnit: 'quota_per_unit',
  displayInCurrency: 'display_in_currency',
  aff: 'aff',
  theme: 'theme',
  appLanguage: 'appLanguage',
  notice: 'notice',
} as const;
export type StorageKey = (typeof StorageKey)[keyof typeof StorageKey];

export function readText(key: StorageKey): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Whether this browser holds a signed-in user (the session itself may have expired on the server). */
export function hasStoredUser(): boolean {
  return readText(StorageKey.user) !== null;
}

export function writeText(key: StorageKey, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Persistence is a convenience; the in-memory state stays correct.
  }
}

export function readJson<T>(key: StorageKey, guard: (value: unknown) => value is T): T | null {
  const raw = readText(key);
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return guard(value) ? value : null;
  } catch {
    return null;
  }
}

export function writeJson(key: StorageKey, value: unknown): void {
  writeText(key, value === null || value === undefined ? null : JSON.stringify(value));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
