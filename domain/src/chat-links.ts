// A chat link's template filled for one key: the console's token menu and the bot's /apikey.

/**
 * The template with `{key}` (the key without its `sk-` prefix: templates write `sk-{key}`) and
 * `{server}` (the site's address without a trailing slash) filled in.
 */
export function fillChatLink(template: string, key: string, server: string): string {
  const bare = key.startsWith('sk-') ? key.slice(3) : key;
  const base = server.replace(/\/+$/, '');
  return template.replaceAll('{key}', bare).replaceAll('{server}', base);
}
