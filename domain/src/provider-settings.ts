import { type ProviderDef, type ProviderField, providerById } from './providers.js';

// Checks of a channel's type-specific settings against its catalog row: the key format of the
// protocols whose adapters parse the key (Bedrock, Vertex, Zhipu, Qianfan v2, Cloudflare), the
// meaning of `other` (Azure api-version, Vertex Region|ProjectID, Azure Speech region) and the
// value kinds of the plugin fields. Pure, so the server refuses a bad channel with the same words
// the console shows beside the field.

export interface SettingProblem {
  field: 'key' | 'other' | 'plugin';
  message: string;
}

export interface ChannelSettings {
  type: number;
  /** One credential per line; a JSON credential (Vertex) is one credential over several lines. */
  key: string;
  other: string;
  base_url: string;
  plugin: Record<string, unknown>;
}

const AWS_REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d+$/;
const CLOUD_REGION = /^[a-z0-9-]+$/;

function keyProblem(def: ProviderDef, key: string): string | null {
  switch (def.protocol) {
    case 'bedrock': {
      const parts = key.split('|').map((s) => s.trim());
      if (!AWS_REGION.test(parts[0] ?? '')) return 'Bedrock keys start with a region: us-east-1|...';
      const ok =
        (parts.length === 2 && parts[1]) ||
        ((parts.length === 3 || parts.length === 4) && parts[1] && parts[2]);
      return ok
        ? null
        : 'Bedrock keys are Region|AccessKeyID|SecretAccessKey[|SessionToken] or Region|APIKey';
    }
    case 'vertex': {
      let v: unknown;
      try {
        v = JSON.parse(key);
      } catch {
        return 'The Vertex AI key must be the whole service-account JSON';
      }
      const r = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
      if (typeof r.client_email !== 'string' || typeof r.private_key !== 'string')
        return 'The service-account JSON needs client_email and private_key';
      return null;
    }
    default:
      break;
  }
  if (def.id === 16 && !/^[^.\s]+\.[^.\s]+$/.test(key)) return 'Zhipu keys are id.secret';
  if (def.id === 15 && key.includes('|'))
    return 'Use a Qianfan v2 API key (bce-v3/...), not an APIKey|SecretKey pair';
  if (def.defaultBaseUrl.includes('{account_id}') && !/^[^|\s]+\|[^|\s]+$/.test(key))
    return 'Keys of this type are ACCOUNT_ID|API_TOKEN';
  return null;
}

function keyCredentials(def: ProviderDef, key: string): string[] {
  const trimmed = key.trim();
  if (def.protocol === 'vertex' || trimmed.startsWith('{')) return trimmed ? [trimmed] : [];
  return trimmed
    .split('\n')
    .map((k) => k.trim())
    .filter(Boolean);
}

function otherProblem(def: ProviderDef, settings: ChannelSettings, credentials: string[]): string | null {
  const other = settings.other.trim();
  switch (def.protocol) {
    case 'azure':
      return other === '' || /^\d{4}-\d{2}-\d{2}(-preview)?$/.test(other)
        ? null
        : 'The API version looks like 2024-10-21 or 2025-04-01-preview';
    case 'azure-speech':
      if (other === '' && settings.base_url.trim() === '')
        return 'Give the Speech resource region, e.g. eastus';
      return other === '' || /^[a-z0-9]+$/.test(other)
        ? null
        : 'The region is a name like eastus or westeurope';
    case 'vertex': {
      const [region = '', project = ''] = other.split('|').map((s) => s.trim());
      if (!region || !CLOUD_REGION.test(region)) return 'Give Region|ProjectID, e.g. us-east5|my-project';
      if (project) return null;
      const missing = credentials.some((c) => {
        try {
          return !(JSON.parse(c) as { project_id?: unknown }).project_id;
        } catch {
          return false;
        }
      });
      return missing ? 'The service account names no project_id: give Region|ProjectID' : null;
    }
    default:
      return null;
  }
}

function pluginValue(plugin: Record<string, unknown>, path: string): unknown {
  let v: unknown = plugin;
  for (const part of path.split('.')) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

function pluginProblems(def: ProviderDef, plugin: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const f of def.fields) {
    const v = pluginValue(plugin, f.key);
    if (v === undefined || v === null || v === '') {
      if (f.required) out.push(`${f.key} is required`);
      continue;
    }
    const ok =
      f.kind === 'bool'
        ? typeof v === 'boolean'
        : f.kind === 'json'
          ? typeof v === 'object'
          : f.kind === 'select'
            ? typeof v === 'string' && (f.options ?? []).includes(v)
            : typeof v === 'string';
    if (!ok)
      out.push(
        `${f.key} must be ${f.kind === 'bool' ? 'true or false' : f.kind === 'json' ? 'a JSON object' : 'text'}`,
      );
  }
  return out;
}

const CONNECTION_TIMEOUTS = ['connect_timeout', 'first_byte_timeout', 'idle_timeout'] as const;

/**
 * The connection settings of every channel, whatever its type, as plugin fields: timeouts in
 * seconds (the relay's defaults: connect 10, first byte 300, idle 300) and a private CA.
 */
export const CONNECTION_FIELDS: readonly ProviderField[] = [
  ...CONNECTION_TIMEOUTS.map(
    (name): ProviderField => ({
      key: `upstream.${name}`,
      labelKey: `provider.field.upstream.${name}`,
      kind: 'string',
      placeholder: name === 'connect_timeout' ? '10' : '300',
    }),
  ),
  {
    key: 'upstream.ca',
    labelKey: 'provider.field.upstream.ca',
    kind: 'text',
    placeholder: '-----BEGIN CERTIFICATE-----',
  },
  // A client that leaves mid-stream: off, the upstream is read to its end and billed whole (most
  // providers bill it anyway); on, it is closed at once and only what was delivered is billed.
  { key: 'billing.delivered_only', labelKey: 'provider.field.billing.delivered_only', kind: 'bool' },
];

/** Whether a plugin field holds a number of seconds (the form keeps it as text). */
export function isSecondsField(key: string): boolean {
  return key.startsWith('upstream.') && key.endsWith('_timeout');
}
/** A day: longer is no timeout at all. */
const MAX_TIMEOUT_SECONDS = 86_400;

/**
 * The connection settings every channel may carry in `plugin.upstream`: timeouts in seconds and a
 * private CA certificate in PEM.
 */
function connectionProblems(plugin: Record<string, unknown>): string[] {
  const upstream = plugin.upstream;
  if (upstream === undefined || upstream === null) return [];
  if (typeof upstream !== 'object' || Array.isArray(upstream))
    return ['upstream must be a JSON object of connection settings'];
  const u = upstream as Record<string, unknown>;
  const out: string[] = [];
  for (const name of CONNECTION_TIMEOUTS) {
    const v = u[name];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > MAX_TIMEOUT_SECONDS)
      out.push(`upstream.${name} must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`);
  }
  const ca = u.ca;
  if (ca !== undefined && ca !== null && ca !== '') {
    if (typeof ca !== 'string' || !ca.includes('-----BEGIN CERTIFICATE-----'))
      out.push('upstream.ca must be a PEM certificate (-----BEGIN CERTIFICATE-----)');
  }
  for (const name of Object.keys(u)) {
    if (name !== 'ca' && !(CONNECTION_TIMEOUTS as readonly string[]).includes(name))
      out.push(`upstream.${name} is not a connection setting (${[...CONNECTION_TIMEOUTS, 'ca'].join(', ')})`);
  }
  return out;
}

/** `plugin.billing`: how a call of the channel is billed (delivered_only: true or false). */
function billingProblems(plugin: Record<string, unknown>): string[] {
  const billing = plugin.billing;
  if (billing === undefined || billing === null) return [];
  if (typeof billing !== 'object' || Array.isArray(billing)) return ['billing must be a JSON object'];
  const out: string[] = [];
  for (const [name, v] of Object.entries(billing)) {
    if (name !== 'delivered_only') out.push(`billing.${name} is not a billing setting (delivered_only)`);
    else if (typeof v !== 'boolean') out.push('billing.delivered_only must be true or false');
  }
  return out;
}

/** Problems of a channel's type-specific settings; empty when they are usable. */
export function channelSettingProblems(settings: ChannelSettings): SettingProblem[] {
  const def = providerById(settings.type);
  if (!def) return [];
  const problems: SettingProblem[] = [];
  const credentials = keyCredentials(def, settings.key);
  credentials.forEach((key, i) => {
    const message = keyProblem(def, key);
    if (message)
      problems.push({
        field: 'key',
        message: credentials.length > 1 ? `Line ${i + 1}: ${message}` : message,
      });
  });
  const other = otherProblem(def, settings, credentials);
  if (other) problems.push({ field: 'other', message: other });
  for (const message of pluginProblems(def, settings.plugin)) problems.push({ field: 'plugin', message });
  for (const message of connectionProblems(settings.plugin)) problems.push({ field: 'plugin', message });
  for (const message of billingProblems(settings.plugin)) problems.push({ field: 'plugin', message });
  return problems;
}
