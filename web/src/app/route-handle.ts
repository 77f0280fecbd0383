import { useMatches } from 'react-router';
import type { MessageKey } from '../i18n/message-key';

/** What every page route carries for its title (placeholder cards, breadcrumbs off the menu). */
export interface RouteHandle {
  title: MessageKey;
}

function isRouteHandle(value: unknown): value is RouteHandle {
  return typeof value === 'object' && value !== null && typeof (value as RouteHandle).title === 'string';
}

/** The title of the deepest matched route that has one. */
export function useRouteTitle(): MessageKey | undefined {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle;
    if (isRouteHandle(handle)) return handle.title;
  }
  return undefined;
}
