/** Hop-by-hop and framing headers are the gateway's to set; a channel's `model_headers` never replaces them. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'expect',
  'accept-encoding',
]);

/**
 * Adds a channel's `model_headers` to the headers a request builder set. Credentials come from the
 * channel key: while the channel has one, `model_headers` cannot replace the protocol's credential
 * headers (a header that silently swapped the credentials would make key rotation, auto-disable and
 * the channel test lie about which key is used). With an empty key the gateway sends no
 * credentials, so `model_headers` may supply them (a self-hosted server behind an auth proxy).
 */
export function withChannelHeaders(
  headers: Record<string, string>,
  channelHeaders: Readonly<Record<string, string>> | undefined,
  hasKey: boolean,
  credentialHeaders: readonly string[],
): Record<string, string> {
  for (const [rawName, value] of Object.entries(channelHeaders ?? {})) {
    const name = rawName.toLowerCase();
    if (RESERVED_HEADERS.has(name)) continue;
    if (hasKey && credentialHeaders.includes(name)) continue;
    headers[name] = value;
  }
  return headers;
}
