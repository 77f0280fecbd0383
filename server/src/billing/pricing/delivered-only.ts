/**
 * Whether a channel bills only what reached the client when the client leaves mid-stream: its
 * `plugin.billing.delivered_only`. Off by default, because most providers bill the whole output
 * whether or not anyone read it; an operator turns it on for a provider that stops billing when the
 * connection closes, and the gateway then closes the upstream at once.
 */
export function billsDeliveredOnly(pluginText: string): boolean {
  if (!pluginText.includes('delivered_only')) return false;
  try {
    const plugin = JSON.parse(pluginText) as { billing?: { delivered_only?: unknown } } | null;
    return plugin?.billing?.delivered_only === true;
  } catch {
    return false;
  }
}
