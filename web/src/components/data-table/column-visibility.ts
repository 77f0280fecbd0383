import { useCallback, useState } from 'react';

// Which columns an operator hid is a preference of this browser, not part of a shared link, so it
// lives in local storage per table rather than in the URL.

const PREFIX = 'table-columns:';

export function readHidden(tableId: string, defaults: readonly string[]): string[] {
  try {
    const raw = window.localStorage.getItem(PREFIX + tableId);
    if (raw === null) return [...defaults];
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [...defaults];
  } catch {
    return [...defaults];
  }
}

function writeHidden(tableId: string, hidden: readonly string[]): void {
  try {
    window.localStorage.setItem(PREFIX + tableId, JSON.stringify(hidden));
  } catch {
    // Persistence is a convenience; the choice still holds for this visit.
  }
}

export function useHiddenColumns(tableId: string, defaults: readonly string[]) {
  const [hidden, setHidden] = useState(() => readHidden(tableId, defaults));
  const toggle = useCallback(
    (columnId: string) => {
      setHidden((current) => {
        const next = current.includes(columnId)
          ? current.filter((id) => id !== columnId)
          : [...current, columnId];
        writeHidden(tableId, next);
        return next;
      });
    },
    [tableId],
  );
  return { hidden, toggle };
}
