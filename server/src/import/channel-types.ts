import { providerById } from '@switchyard/domain';
import type { SourceSystem } from './source.js';

// Channel types of the old systems mapped onto the provider catalog, and their base URLs turned
// into this gateway's API-root form. The old systems append the whole request path (`/v1/chat/
// completions` for OpenAI-style vendors) to a base URL stored as a bare host; here an OpenAI-style
// base URL is the API root (`https://host/v1`), so `suffix` is what the old system put between the
// stored base URL and the endpoint name. Facts from each system's channel-type constants.

interface TypeRule {
  /** Our catalog id. */
  to: number;
  /** Appended to the (non-empty) base URL to reach the API root the old system called. */
  suffix?: string;
  /** The old system's built-in base URL, used when the channel left it empty and ours differs. */
  defaultBase?: string;
}

const V1 = '/v1';

// one-hub numbers its types as our catalog does.
const ONE_HUB_V1 = new Set([1, 8, 19, 20, 26, 27, 28, 29, 30, 31, 33, 39, 45, 55, 56]);

const reseller = (defaultBase: string): TypeRule => ({ to: 1, suffix: V1, defaultBase });

const ONE_API: Record<number, TypeRule> = {
  1: { to: 1, suffix: V1 },
  2: reseller('https://oa.api2d.net'),
  3: { to: 3 },
  4: reseller('https://api.closeai-proxy.xyz'),
  5: reseller('https://api.openai-sb.com'),
  6: reseller('https://api.openaimax.com'),
  7: reseller('https://api.ohmygpt.com'),
  8: { to: 8, suffix: V1 },
  9: reseller('https://api.caipacity.com'),
  10: reseller('https://api.aiproxy.io'),
  11: { to: 11 },
  12: reseller('https://api.api2gpt.com'),
  13: reseller('https://api.aigc2d.com'),
  14: { to: 14 },
  15: { to: 15 },
  16: { to: 16 },
  17: { to: 17 },
  18: { to: 18 },
  19: { to: 19, suffix: V1 },
  20: { to: 20, suffix: V1 },
  23: { to: 23 },
  24: { to: 25 },
  25: { to: 29, suffix: V1 },
  26: { to: 26, suffix: V1 },
  27: { to: 27, suffix: V1 },
  28: { to: 30, suffix: V1 },
  29: { to: 31, suffix: V1 },
  30: { to: 39, suffix: V1 },
  31: { to: 33, suffix: V1 },
  32: reseller('https://api.stepfun.com'),
  33: { to: 32 },
  34: { to: 38 },
  35: { to: 36 },
  36: { to: 28, suffix: V1 },
  37: { to: 35 },
  39: reseller('https://api.together.xyz'),
  40: { to: 1, suffix: '/api/v3', defaultBase: 'https://ark.cn-beijing.volces.com' },
  41: { to: 1, suffix: '', defaultBase: 'https://api.novita.ai/v3/openai' },
  42: { to: 42 },
  44: { to: 45, suffix: V1 },
  45: { to: 56, suffix: V1 },
  46: { to: 52 },
  47: { to: 15, suffix: '/v2' },
  48: { to: 18, suffix: V1 },
  49: { to: 17, suffix: '/compatible-mode/v1' },
  50: { to: 1, suffix: V1 },
  51: { to: 1, suffix: '', defaultBase: 'https://generativelanguage.googleapis.com/v1beta/openai' },
};

/** new-api kept one-api's numbers for types 1, 3, 6 to 25 and 31; the others it numbered anew. */
const NEW_API: Record<number, TypeRule> = {
  ...Object.fromEntries(
    Object.entries(ONE_API).filter(
      ([id]) => [1, 3, 31].includes(Number(id)) || (Number(id) >= 6 && Number(id) <= 25),
    ),
  ),
  2: { to: 34 },
  4: { to: 39, suffix: V1 },
  5: { to: 34 },
  26: { to: 16 },
  27: { to: 1, suffix: '', defaultBase: 'https://api.perplexity.ai' },
  33: { to: 32 },
  34: { to: 36 },
  35: { to: 27, suffix: V1 },
  36: { to: 41 },
  38: { to: 47 },
  39: { to: 35 },
  40: { to: 45, suffix: V1 },
  41: { to: 42 },
  42: { to: 30, suffix: V1 },
  43: { to: 28, suffix: V1 },
  45: { to: 1, suffix: '/api/v3', defaultBase: 'https://ark.cn-beijing.volces.com' },
  46: { to: 15, suffix: '/v2' },
  48: { to: 56, suffix: V1 },
  49: { to: 38 },
  50: { to: 53 },
  56: { to: 52 },
};

export type ChannelTypeMapping =
  | { ok: true; type: number; baseUrl: string; note?: string }
  | { ok: false; reason: string };

function rule(system: SourceSystem, type: number): TypeRule | undefined {
  if (system === 'one-hub') {
    if (!providerById(type)) return undefined;
    return ONE_HUB_V1.has(type) ? { to: type, suffix: V1 } : { to: type };
  }
  return (system === 'one-api' ? ONE_API : NEW_API)[type];
}

/** Our type and API-root base URL for an old channel, or why it has no counterpart. */
export function mapChannelType(system: SourceSystem, type: number, baseUrl: string): ChannelTypeMapping {
  const r = rule(system, type);
  if (!r) return { ok: false, reason: `${system} channel type ${type} has no counterpart in Switchyard` };
  let base = baseUrl.trim().replace(/\/+$/, '');
  if (base === '' && r.defaultBase) base = r.defaultBase;
  if (base === '') return { ok: true, type: r.to, baseUrl: '' };
  // Cloudflare's AI gateway takes the path without the version segment; the old systems strip it too.
  if (r.suffix && !/^https:\/\/gateway\.ai\.cloudflare\.com/.test(base)) base += r.suffix;
  const provider = providerById(r.to);
  const note =
    r.suffix === undefined && provider?.protocol === 'openai'
      ? `custom base URL ${base} kept as it was; check it reaches the same API`
      : undefined;
  return note ? { ok: true, type: r.to, baseUrl: base, note } : { ok: true, type: r.to, baseUrl: base };
}
