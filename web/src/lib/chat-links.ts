import { type ChatLink, DEFAULT_CHAT_LINKS, fillChatLink, optionDefs } from '@switchyard/domain';

// Chat links: chat apps opened with the user's key, from the site's ChatLinks setting
// (JSON text in /api/status) or the four defaults. Only shown entries, in their sort order.

function isChatLink(value: unknown): value is ChatLink {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.name === 'string' &&
    typeof v.url === 'string' &&
    typeof v.show === 'boolean' &&
    typeof v.sort === 'number'
  );
}

/** The chat links to offer: the configured list (defaults when unset or unreadable), shown ones, sorted. */
export function visibleChatLinks(chatLinksJson: string): ChatLink[] {
  let links: ChatLink[] = DEFAULT_CHAT_LINKS.map((l) => ({ ...l }));
  if (chatLinksJson.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(chatLinksJson);
      if (Array.isArray(parsed)) links = parsed.filter(isChatLink);
    } catch {
      // A broken setting must not take the token page down; the defaults stand in.
    }
  }
  return links.filter((l) => l.show).sort((a, b) => a.sort - b.sort);
}

export { fillChatLink };

/**
 * The server address chat apps should call: the configured one, else where this console is served.
 * The option's shipped default (`http://localhost:3000`) counts as not configured: it is only a
 * placeholder, and on any other machine a chat app would call nothing.
 */
export function serverAddress(configured: string, origin: string): string {
  const set = configured.trim();
  const unset = set === '' || set.replace(/\/+$/, '') === optionDefs.ServerAddress.default;
  return (unset ? origin : set).replace(/\/+$/, '');
}
