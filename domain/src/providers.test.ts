import { describe, expect, it } from 'vitest';
import {
  MODEL_OWNER_MIN_CUSTOM_ID,
  openAiCompatibleRoot,
  providerById,
  providerIdsWith,
  providers,
  reservedModelOwners,
} from './providers.js';

// one-hub's channel-type numbers (its legacy, commented-out types excluded).
const REFERENCE_TYPES = [
  1, 3, 8, 11, 14, 15, 16, 17, 18, 19, 20, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
  40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 51, 52, 53, 54, 55, 56,
];

describe('provider catalog', () => {
  it('has one row per reference channel type and no other', () => {
    const ids = providers.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(REFERENCE_TYPES);
  });

  it('marks owner-only categories as not selectable', () => {
    for (const id of [43, 44, 46, 48]) expect(providerById(id)?.selectable, String(id)).toBe(false);
    for (const id of [1, 3, 8, 14, 25, 28, 56]) expect(providerById(id)?.selectable, String(id)).toBe(true);
  });

  it('gives selectable rows a usable base URL rule', () => {
    for (const p of providers.filter((x) => x.selectable)) {
      if (p.defaultBaseUrl !== '') expect(p.defaultBaseUrl, p.name).toMatch(/^https?:\/\/\S+[^/]$/);
      // An empty default only works when the user must enter one, or the adapter derives it.
      if (p.defaultBaseUrl === '' && !p.baseUrlRequired)
        expect(['azure-speech', 'bedrock', 'vertex'], p.name).toContain(p.protocol);
    }
  });

  it('uses distinct label keys and https icons', () => {
    const labels = providers.map((p) => p.labelKey);
    expect(new Set(labels).size).toBe(labels.length);
    for (const p of providers) {
      expect(p.labelKey).toMatch(/^provider\.[a-zA-Z0-9]+$/);
      expect(p.icon).toMatch(/^https:\/\/\S+\.png$/);
    }
    expect(providerById(1)?.labelKey).toBe('provider.openai');
  });

  it('routes the OpenAI-compatible vendors through the openai protocol', () => {
    for (const id of [8, 15, 16, 17, 19, 20, 26, 27, 28, 29, 30, 31, 33, 35, 39, 45, 49, 56]) {
      expect(providerById(id)?.protocol, String(id)).toBe('openai');
    }
    expect(providerById(3)?.protocol).toBe('azure');
    expect(providerById(14)?.protocol).toBe('anthropic');
    expect(providerById(25)?.protocol).toBe('gemini');
    expect(providerById(42)?.protocol).toBe('vertex');
    expect(providerById(32)?.protocol).toBe('bedrock');
    expect(providerById(28)?.defaultBaseUrl).toBe('https://api.deepseek.com/v1');
  });

  it('declares the type-specific fields', () => {
    const fieldKeys = (id: number) => providerById(id)?.fields.map((f) => f.key) ?? [];
    const voices = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'].map((v) => `voice.${v}`);
    expect(fieldKeys(24)).toEqual(voices);
    expect(fieldKeys(27)).toEqual(voices);
    expect(fieldKeys(8)).toContain('customize.1');
    expect(fieldKeys(8)).toContain('customize.16');
    expect(fieldKeys(16)).toEqual([
      'retrieval.knowledge_id',
      'retrieval.prompt_template',
      'web_search.enable',
    ]);
    expect(fieldKeys(25)).toEqual(['code_execution.enable', 'use_openai_api.enable']);
    expect(fieldKeys(39)).toEqual(['headers']);
    expect(fieldKeys(20)).toEqual(['other.provider']);
    for (const p of providers) {
      const keys = p.fields.map((f) => f.key);
      expect(new Set(keys).size, p.name).toBe(keys.length);
    }
  });

  it('gives the `other` field a label where the type uses it', () => {
    expect(providerById(3)?.otherLabelKey).toBeDefined();
    expect(providerById(25)?.otherDefault).toBe('v1beta');
    expect(providerById(24)?.otherLabelKey).toBe('provider.other.region');
    expect(providerById(1)?.otherLabelKey).toBeUndefined();
  });

  it('describes the vendors with their own adapters: protocol, key format and `other` meaning', () => {
    expect(providerById(24)?.protocol).toBe('azure-speech');
    expect(providerById(36)?.protocol).toBe('cohere');
    expect(providerById(47)?.protocol).toBe('jina');
    expect(providerById(32)?.keyHint).toBe(
      'Region|AccessKeyID|SecretAccessKey[|SessionToken] or Region|APIKey',
    );
    expect(providerById(16)?.keyHint).toBe('id.secret');
    expect(providerById(42)?.otherLabelKey).toBe('provider.other.regionProject');
    expect(providerById(42)?.otherPlaceholder).toMatch(/^us-east5\|/);
    expect(providerById(3)?.otherPlaceholder).toContain('preview');
    expect(providerById(24)?.otherPlaceholder).toBe('eastus');
    // Only rows with an `other` field have an example for it.
    for (const p of providers)
      if (p.otherPlaceholder !== undefined) expect(p.otherLabelKey, p.name).toBeDefined();
  });

  it('returns undefined for an unknown type', () => {
    expect(providerById(2)).toBeUndefined();
    expect(providerById(9999)).toBeUndefined();
  });
});

describe('request capabilities', () => {
  it('are OpenAI request fields, so only OpenAI-style rows (OpenAI, Azure, compatible vendors) have them', () => {
    for (const capability of ['streamUsageOption', 'maxCompletionTokens', 'reasoningEffort'] as const) {
      const ids = providerIdsWith(capability);
      expect(ids.has(1), capability).toBe(true);
      for (const id of ids)
        expect(['openai', 'azure'], `${capability} ${id}`).toContain(providerById(id)?.protocol);
    }
    // Vendors that refuse unknown fields, or send usage unasked, are not asked for it.
    const mistral = providers.find((p) => p.name === 'Mistral');
    expect(mistral && providerIdsWith('streamUsageOption').has(mistral.id)).toBe(false);
    expect(providerIdsWith('nativeResponses')).toEqual(new Set([1]));
  });
});

describe('reserved model owners', () => {
  it('has one owner per catalog row, all below the first custom id', () => {
    const owners = reservedModelOwners();
    expect(owners).toHaveLength(providers.length);
    for (const o of owners) {
      expect(o.id).toBeLessThanOrEqual(1000);
      expect(o.id).toBeLessThan(MODEL_OWNER_MIN_CUSTOM_ID);
      expect(o.name).not.toBe('');
      expect(o.icon).toMatch(/^https:\/\//);
    }
    expect(owners.find((o) => o.id === 14)?.name).toBe('Anthropic Claude');
    expect(MODEL_OWNER_MIN_CUSTOM_ID).toBe(1001);
  });
});

describe('openAiCompatibleRoot', () => {
  it('adds /v1 only to a bare origin', () => {
    expect(openAiCompatibleRoot('https://api.openai.com')).toBe('https://api.openai.com/v1');
    expect(openAiCompatibleRoot('https://api.openai.com/')).toBe('https://api.openai.com/v1');
    expect(openAiCompatibleRoot('http://localhost:11434')).toBe('http://localhost:11434/v1');
    expect(openAiCompatibleRoot('https://api.openai.com/v1/')).toBe('https://api.openai.com/v1');
    expect(openAiCompatibleRoot('https://open.bigmodel.cn/api/paas/v4')).toBe(
      'https://open.bigmodel.cn/api/paas/v4',
    );
    expect(openAiCompatibleRoot(' https://openrouter.ai/api/v1 ')).toBe('https://openrouter.ai/api/v1');
  });
});
