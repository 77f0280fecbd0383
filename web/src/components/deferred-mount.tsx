import { type ReactNode, startTransition, useEffect, useState } from 'react';

/**
 * Mounts its children in a transition after the screen around them has been committed: what a first
 * screen shows at once is drawn without waiting for them, and their render yields to the browser.
 */
export function DeferredMount({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => startTransition(() => setMounted(true)), []);
  return mounted ? children : fallback;
}
