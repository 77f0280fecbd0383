// The provider catalog: one row per channel type (one-hub's numbers). An
// OpenAI-compatible vendor is a row here, not code: the relay picks its adapter by `protocol`.

export type WireProtocol =
  | 'openai'
  | 'azure'
  | 'anthropic'
  | 'gemini'
  | 'vertex'
  | 'bedrock'
  | 'cohere'
  | 'jina'
  | 'azure-speech'
  | 'midjourney'
  | 'suno'
  | 'kling'
  | 'other';

/**
 * A type-specific setting stored in the channel's `plugin` JSON. `key` is a dotted path into it:
 * `voice.alloy` is `plugin.voice.alloy`, `customize.1` is `plugin.customize["1"]`.
 */
export interface ProviderField {
  key: string;
  labelKey: string;
  kind: 'string' | 'text' | 'bool' | 'select' | 'json';
  options?: string[];
  placeholder?: string;
  required?: boolean;
}

export interface ProviderDef {
  id: number;
  /** The vendor's own name (not translated). */
  name: string;
  labelKey: string;
  protocol: WireProtocol;
  /**
   * What the vendor's official SDK calls its base URL: with the version segment for OpenAI-style
   * APIs (`https://api.openai.com/v1`), without it for Anthropic and Gemini. Empty when it depends
   * on the account (Azure, Bedrock, Vertex) or on a self-hosted deployment. `{account_id}` is filled
   * from the first `|`-separated part of the key.
   */
  defaultBaseUrl: string;
  baseUrlRequired: boolean;
  /** Format of the channel key, shown under the key field. */
  keyHint: string;
  /** Label of the channel's free `other` field when this type uses it. */
  otherLabelKey?: string;
  otherDefault?: string;
  /** An example of the `other` value, shown in the empty field. */
  otherPlaceholder?: string;
  /** False for retired APIs and owner-only categories: kept so stored rows and model owners resolve. */
  selectable: boolean;
  supportsBalance: boolean;
  supportsModelList: boolean;
  /** Serves OpenAI's Responses API itself, so `/v1/responses` passes through untranslated. */
  nativeResponses?: boolean;
  /**
   * Honours `stream_options.include_usage`, so the gateway asks a streamed call for its usage. Other
   * OpenAI-style vendors get the client's body unchanged: some refuse unknown fields, and several
   * (Mistral, Groq, Moonshot) send usage on their own.
   */
  streamUsageOption?: boolean;
  /** Takes `max_completion_tokens` for every chat model (its reasoning models refuse `max_tokens`). */
  maxCompletionTokens?: boolean;
  /**
   * Takes OpenAI's `reasoning_effort`. A body translated for other vendors leaves it out: strict ones
   * (Mistral) refuse unknown fields, and others (Groq) refuse it for models that do not reason.
   */
  reasoningEffort?: boolean;
  fields: ProviderField[];
  icon: string;
}

const ICON_BASE = 'https://registry.npmmirror.com/@lobehub/icons-static-png/latest/files/light/';
const icon = (slug: string) => `${ICON_BASE}${slug}.png`;

const VOICES = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'] as const;

function voiceFields(example: string): ProviderField[] {
  return VOICES.map((v) => ({
    key: `voice.${v}`,
    labelKey: `provider.field.voice.${v}`,
    kind: 'string',
    placeholder: example,
  }));
}

// Relay modes (one-hub's numbers) that a custom channel may re-route; paths are relative to its base URL.
const CUSTOM_PATHS: readonly [mode: number, name: string, path: string][] = [
  [1, 'chat', '/chat/completions'],
  [2, 'completions', '/completions'],
  [3, 'embeddings', '/embeddings'],
  [4, 'moderations', '/moderations'],
  [5, 'imagesGenerations', '/images/generations'],
  [6, 'imagesEdits', '/images/edits'],
  [7, 'imagesVariations', '/images/variations'],
  [9, 'audioSpeech', '/audio/speech'],
  [10, 'audioTranscription', '/audio/transcriptions'],
  [11, 'audioTranslation', '/audio/translations'],
  [16, 'responses', '/responses'],
];

const customizeFields: ProviderField[] = CUSTOM_PATHS.map(([mode, name, path]) => ({
  key: `customize.${mode}`,
  labelKey: `provider.field.customize.${name}`,
  kind: 'string',
  placeholder: `${path} (or "disable")`,
}));

const flag = (key: string): ProviderField => ({ key, labelKey: `provider.field.${key}`, kind: 'bool' });

interface Row extends Partial<Omit<ProviderDef, 'id' | 'name' | 'protocol' | 'icon'>> {
  id: number;
  name: string;
  slug: string;
  protocol: WireProtocol;
  iconSlug?: string;
}

/** Most rows differ from an OpenAI-compatible, selectable, key-only vendor in a few fields. */
function row(r: Row): ProviderDef {
  const def: ProviderDef = {
    id: r.id,
    name: r.name,
    labelKey: r.labelKey ?? `provider.${r.slug}`,
    protocol: r.protocol,
    defaultBaseUrl: r.defaultBaseUrl ?? '',
    baseUrlRequired: r.baseUrlRequired ?? false,
    keyHint: r.keyHint ?? 'API key',
    selectable: r.selectable ?? true,
    supportsBalance: r.supportsBalance ?? false,
    supportsModelList: r.supportsModelList ?? false,
    fields: r.fields ?? [],
    icon: icon(r.iconSlug ?? r.slug),
  };
  if (r.otherLabelKey !== undefined) def.otherLabelKey = r.otherLabelKey;
  if (r.otherDefault !== undefined) def.otherDefault = r.otherDefault;
  if (r.otherPlaceholder !== undefined) def.otherPlaceholder = r.otherPlaceholder;
  if (r.nativeResponses) def.nativeResponses = true;
  if (r.streamUsageOption) def.streamUsageOption = true;
  if (r.maxCompletionTokens) def.maxCompletionTokens = true;
  if (r.reasoningEffort) def.reasoningEffort = true;
  return def;
}

function ownerOnly(id: number, name: string, slug: string, iconSlug?: string): ProviderDef {
  return row({
    id,
    name,
    slug,
    protocol: 'other',
    keyHint: '',
    selectable: false,
    ...(iconSlug ? { iconSlug } : {}),
  });
}

export const providers: readonly ProviderDef[] = [
  row({
    id: 1,
    streamUsageOption: true,
    maxCompletionTokens: true,
    reasoningEffort: true,
    name: 'OpenAI',
    slug: 'openai',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.openai.com/v1',
    keyHint: 'sk-...',
    supportsBalance: true,
    supportsModelList: true,
    nativeResponses: true,
  }),
  row({
    id: 3,
    streamUsageOption: true,
    reasoningEffort: true,
    name: 'Azure OpenAI',
    slug: 'azure',
    protocol: 'azure',
    baseUrlRequired: true,
    keyHint: 'Azure OpenAI resource key; base URL https://<resource>.openai.azure.com',
    otherLabelKey: 'provider.other.apiVersion',
    otherDefault: '2024-10-21',
    otherPlaceholder: '2024-10-21 or 2025-04-01-preview',
    supportsModelList: true,
  }),
  row({
    id: 8,
    reasoningEffort: true,
    name: 'Custom',
    slug: 'custom',
    protocol: 'openai',
    iconSlug: 'openai',
    baseUrlRequired: true,
    keyHint: 'Bearer key of the OpenAI-compatible service',
    supportsBalance: true,
    supportsModelList: true,
    fields: customizeFields,
  }),
  row({
    id: 11,
    name: 'Google PaLM2',
    slug: 'palm',
    protocol: 'other',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    // Google shut the PaLM API down in 2024.
    selectable: false,
  }),
  row({
    id: 14,
    name: 'Anthropic Claude',
    slug: 'anthropic',
    protocol: 'anthropic',
    iconSlug: 'claude',
    defaultBaseUrl: 'https://api.anthropic.com',
    keyHint: 'sk-ant-...',
    supportsModelList: true,
  }),
  row({
    id: 15,
    streamUsageOption: true,
    name: 'Baidu Qianfan',
    slug: 'baidu',
    protocol: 'openai',
    iconSlug: 'wenxin',
    defaultBaseUrl: 'https://qianfan.baidubce.com/v2',
    keyHint: 'Qianfan API key (bce-v3/...)',
  }),
  row({
    id: 16,
    name: 'Zhipu GLM',
    slug: 'zhipu',
    protocol: 'openai',
    defaultBaseUrl: 'https://open.bigmodel.cn/api/paas/v4',
    keyHint: 'id.secret',
    fields: [
      { key: 'retrieval.knowledge_id', labelKey: 'provider.field.retrieval.knowledge_id', kind: 'string' },
      {
        key: 'retrieval.prompt_template',
        labelKey: 'provider.field.retrieval.prompt_template',
        kind: 'text',
        placeholder: 'Answer {{question}} using {{knowledge}}',
      },
      flag('web_search.enable'),
    ],
  }),
  row({
    id: 17,
    streamUsageOption: true,
    name: 'Alibaba DashScope',
    slug: 'dashscope',
    protocol: 'openai',
    iconSlug: 'qwen',
    defaultBaseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    keyHint: 'sk-...',
    supportsModelList: true,
    fields: [flag('web_search.enable')],
  }),
  row({
    id: 18,
    name: 'iFlytek Spark',
    slug: 'xunfei',
    protocol: 'openai',
    iconSlug: 'spark',
    defaultBaseUrl: 'https://spark-api-open.xf-yun.com/v1',
    keyHint: 'APIPassword of the Spark HTTP API',
  }),
  row({ id: 19, name: '360 AI', slug: 'ai360', protocol: 'openai', defaultBaseUrl: 'https://api.360.cn/v1' }),
  row({
    id: 20,
    streamUsageOption: true,
    reasoningEffort: true,
    name: 'OpenRouter',
    slug: 'openrouter',
    protocol: 'openai',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    keyHint: 'sk-or-...',
    supportsModelList: true,
    fields: [
      {
        key: 'other.provider',
        labelKey: 'provider.field.other.provider',
        kind: 'json',
        placeholder: '{"order": ["anthropic", "openai"], "allow_fallbacks": true}',
      },
    ],
  }),
  row({
    id: 23,
    name: 'Tencent Hunyuan (legacy)',
    slug: 'tencent',
    protocol: 'other',
    iconSlug: 'hunyuan',
    keyHint: 'AppId|SecretId|SecretKey',
    // The old signed hyllm API is retired; type 40 replaces it.
    selectable: false,
  }),
  row({
    id: 24,
    name: 'Azure Speech',
    slug: 'azureSpeech',
    protocol: 'azure-speech',
    iconSlug: 'azure',
    keyHint: 'Speech resource key',
    otherLabelKey: 'provider.other.region',
    otherDefault: 'eastus',
    otherPlaceholder: 'eastus',
    fields: voiceFields('en-US-AvaMultilingualNeural'),
  }),
  row({
    id: 25,
    name: 'Google Gemini',
    slug: 'gemini',
    protocol: 'gemini',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    keyHint: 'AIza...',
    otherLabelKey: 'provider.other.apiVersion',
    otherDefault: 'v1beta',
    supportsModelList: true,
    fields: [flag('code_execution.enable'), flag('use_openai_api.enable')],
  }),
  row({
    id: 26,
    name: 'Baichuan',
    slug: 'baichuan',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.baichuan-ai.com/v1',
    keyHint: 'sk-...',
  }),
  row({
    id: 27,
    name: 'MiniMax',
    slug: 'minimax',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.minimaxi.com/v1',
    fields: voiceFields('male-qn-qingse'),
  }),
  row({
    id: 28,
    streamUsageOption: true,
    name: 'DeepSeek',
    slug: 'deepseek',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    keyHint: 'sk-...',
    supportsBalance: true,
    supportsModelList: true,
  }),
  row({
    id: 29,
    name: 'Moonshot',
    slug: 'moonshot',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.moonshot.cn/v1',
    keyHint: 'sk-...',
    supportsBalance: true,
    supportsModelList: true,
  }),
  row({
    id: 30,
    name: 'Mistral',
    slug: 'mistral',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    supportsModelList: true,
  }),
  row({
    id: 31,
    name: 'Groq',
    slug: 'groq',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    keyHint: 'gsk_...',
    supportsModelList: true,
  }),
  row({
    id: 32,
    name: 'Amazon Bedrock',
    slug: 'bedrock',
    protocol: 'bedrock',
    keyHint: 'Region|AccessKeyID|SecretAccessKey[|SessionToken] or Region|APIKey',
  }),
  row({
    id: 33,
    name: '01.AI Yi',
    slug: 'yi',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.lingyiwanwu.com/v1',
    supportsModelList: true,
  }),
  row({
    id: 34,
    name: 'Midjourney',
    slug: 'midjourney',
    protocol: 'midjourney',
    baseUrlRequired: true,
    keyHint: 'mj-api-secret of the midjourney-proxy deployment',
  }),
  row({
    id: 35,
    name: 'Cloudflare Workers AI',
    slug: 'cloudflare',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.cloudflare.com/client/v4/accounts/{account_id}/ai/v1',
    keyHint: 'ACCOUNT_ID|API_TOKEN',
  }),
  row({
    id: 36,
    name: 'Cohere',
    slug: 'cohere',
    protocol: 'cohere',
    defaultBaseUrl: 'https://api.cohere.com',
    keyHint: 'Cohere API key (Bearer)',
    supportsModelList: true,
  }),
  row({
    id: 37,
    name: 'Stability AI',
    slug: 'stability',
    protocol: 'other',
    defaultBaseUrl: 'https://api.stability.ai',
    keyHint: 'sk-...',
  }),
  row({
    id: 38,
    name: 'Coze',
    slug: 'coze',
    protocol: 'other',
    defaultBaseUrl: 'https://api.coze.com',
    keyHint: 'Personal access token (pat_...); models are named coze-<bot_id>',
  }),
  row({
    id: 39,
    name: 'Ollama',
    slug: 'ollama',
    protocol: 'openai',
    defaultBaseUrl: 'http://localhost:11434/v1',
    keyHint: 'Any text for a local server; an API key for ollama.com',
    supportsModelList: true,
    fields: [
      {
        key: 'headers',
        labelKey: 'provider.field.headers',
        kind: 'json',
        placeholder: '{"CF-Access-Client-Id": "...", "CF-Access-Client-Secret": "..."}',
      },
    ],
  }),
  row({
    id: 40,
    name: 'Tencent Hunyuan',
    slug: 'hunyuan',
    protocol: 'openai',
    defaultBaseUrl: 'https://api.hunyuan.cloud.tencent.com/v1',
    keyHint: 'sk-... (Hunyuan API key)',
  }),
  row({
    id: 41,
    name: 'Suno',
    slug: 'suno',
    protocol: 'suno',
    baseUrlRequired: true,
    keyHint: 'Key of the Suno-API deployment',
  }),
  row({
    id: 42,
    name: 'Vertex AI',
    slug: 'vertexai',
    protocol: 'vertex',
    keyHint: 'The whole service-account JSON (client_email, private_key, project_id)',
    otherLabelKey: 'provider.other.regionProject',
    otherPlaceholder: "us-east5|my-project-id (the project defaults to the key's project_id)",
  }),
  ownerOnly(43, 'Meta Llama', 'llama', 'meta'),
  ownerOnly(44, 'Ideogram', 'ideogram'),
  row({
    id: 45,
    name: 'SiliconFlow',
    slug: 'siliconflow',
    protocol: 'openai',
    iconSlug: 'siliconcloud',
    defaultBaseUrl: 'https://api.siliconflow.cn/v1',
    keyHint: 'sk-...',
    supportsBalance: true,
    supportsModelList: true,
  }),
  ownerOnly(46, 'Flux', 'flux'),
  row({
    id: 47,
    name: 'Jina',
    slug: 'jina',
    protocol: 'jina',
    defaultBaseUrl: 'https://api.jina.ai',
    keyHint: 'jina_...',
  }),
  ownerOnly(48, 'Rerank', 'rerank', 'cohere'),
  row({
    id: 49,
    reasoningEffort: true,
    name: 'GitHub Models',
    slug: 'github',
    protocol: 'openai',
    defaultBaseUrl: 'https://models.github.ai/inference',
    keyHint: 'GitHub personal access token (models: read)',
  }),
  row({
    id: 51,
    name: 'Recraft AI',
    slug: 'recraft',
    protocol: 'openai',
    defaultBaseUrl: 'https://external.api.recraft.ai/v1',
    supportsBalance: true,
  }),
  row({
    id: 52,
    name: 'Replicate',
    slug: 'replicate',
    protocol: 'other',
    defaultBaseUrl: 'https://api.replicate.com',
    keyHint: 'r8_...',
  }),
  row({
    id: 53,
    name: 'Kling',
    slug: 'kling',
    protocol: 'kling',
    defaultBaseUrl: 'https://api-singapore.klingai.com',
    keyHint: 'accessKey|secretKey',
  }),
  row({
    id: 54,
    name: 'Azure Databricks',
    slug: 'databricks',
    protocol: 'openai',
    iconSlug: 'dbrx',
    baseUrlRequired: true,
    keyHint: 'Databricks token; base URL https://<workspace>/serving-endpoints',
  }),
  row({
    id: 55,
    streamUsageOption: true,
    reasoningEffort: true,
    name: 'Azure OpenAI v1',
    slug: 'azureV1',
    protocol: 'openai',
    iconSlug: 'azure',
    baseUrlRequired: true,
    keyHint: 'Azure OpenAI resource key; base URL https://<resource>.openai.azure.com/openai/v1',
    supportsModelList: true,
  }),
  row({
    id: 56,
    reasoningEffort: true,
    name: 'xAI',
    slug: 'xai',
    protocol: 'openai',
    iconSlug: 'grok',
    defaultBaseUrl: 'https://api.x.ai/v1',
    keyHint: 'xai-...',
    supportsModelList: true,
  }),
];

const byId = new Map(providers.map((p) => [p.id, p]));

export function providerById(id: number): ProviderDef | undefined {
  return byId.get(id);
}

/** Model-owner ids up to 1000 are the channel-type numbers; admins create ids from here up. */
export const MODEL_OWNER_MIN_CUSTOM_ID = 1001;

export type ProviderCapability =
  | 'nativeResponses'
  | 'streamUsageOption'
  | 'maxCompletionTokens'
  | 'reasoningEffort';

/** The channel types whose catalog row has `capability`. */
export function providerIdsWith(capability: ProviderCapability): ReadonlySet<number> {
  return new Set(providers.filter((p) => p[capability] === true).map((p) => p.id));
}

/** The reserved model owners seeded at start: one per catalog row. */
export function reservedModelOwners(): { id: number; name: string; icon: string }[] {
  return providers.map((p) => ({ id: p.id, name: p.name, icon: p.icon }));
}

/**
 * The API root of an OpenAI-style channel. A base URL with no path (as one-hub stored them, e.g.
 * `https://api.openai.com`) gets `/v1`; one with a path is used as given, minus trailing slashes.
 */
export function openAiCompatibleRoot(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]+(.*)$/i.exec(trimmed);
  return m && m[1] === '' ? `${trimmed}/v1` : trimmed;
}
