import type { ChannelView } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';
import {
  addModels,
  channelBody,
  emptyChannelForm,
  flattenPlugin,
  formFromChannel,
  unpricedModels,
} from './channel-form';

const filled = () => ({
  ...emptyChannelForm(1),
  name: 'main',
  key: 'sk-1\nsk-2',
  models: ['gpt-4o', 'gpt-4o-mini'],
});

describe('channel form', () => {
  it('builds the create body with the mapping and headers as JSON objects', () => {
    const result = channelBody({
      ...filled(),
      mapping: [
        { key: 'gpt-4o', value: '+gpt-4o-2024' },
        { key: '', value: '' },
      ],
      headers: [{ key: 'X-Team', value: 'a' }],
      priority: '3',
      weight: '5',
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.body).toMatchObject({
      type: 1,
      name: 'main',
      key: 'sk-1\nsk-2',
      models: ['gpt-4o', 'gpt-4o-mini'],
      group: ['default'],
      priority: 3,
      weight: 5,
    });
    expect(JSON.parse(result.body.model_mapping as string)).toEqual({ 'gpt-4o': '+gpt-4o-2024' });
    expect(JSON.parse(result.body.model_headers as string)).toEqual({ 'X-Team': 'a' });
    expect(result.body.id).toBeUndefined();
  });

  it('reports every required field, priority below 0 and weight below 1 without building a body', () => {
    const result = channelBody({ ...emptyChannelForm(1), group: [], priority: '-1', weight: '0' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual([
      'group',
      'key',
      'models',
      'name',
      'priority',
      'weight',
    ]);
    expect(result.errors.priority).toBe('优先级不能小于 0');
    expect(result.errors.weight).toBe('权重不能小于 1');
  });

  it('refuses repeated models and a wildcard that is not last or stands alone', () => {
    const repeated = channelBody({ ...filled(), models: ['a', 'a'] });
    expect(!repeated.ok && repeated.errors.models).toBe('模型 a 重复了');
    for (const bad of ['*', 'gpt-*-mini']) {
      const result = channelBody({ ...filled(), models: [bad] });
      expect(result.ok).toBe(false);
    }
    expect(channelBody({ ...filled(), models: ['gpt-4*'] }).ok).toBe(true);
  });

  it('refuses a half-filled mapping row and a repeated key', () => {
    const half = channelBody({ ...filled(), mapping: [{ key: 'a', value: '' }] });
    expect(!half.ok && half.errors.model_mapping).toBeTruthy();
    const twice = channelBody({
      ...filled(),
      headers: [
        { key: 'X', value: '1' },
        { key: 'X', value: '2' },
      ],
    });
    expect(!twice.ok && twice.errors.model_headers).toBeTruthy();
  });

  it('requires the base URL when the type has no default, and keeps the key on edit when left empty', () => {
    const azure = channelBody({ ...filled(), type: 3 });
    expect(!azure.ok && azure.errors.base_url).toBeTruthy();
    const edit = channelBody({ ...filled(), key: '' }, 7);
    expect(edit.ok && edit.body).toMatchObject({ id: 7 });
    expect(edit.ok && 'key' in edit.body).toBe(false);
  });

  it('nests the type fields by their dotted keys and parses json fields', () => {
    const result = channelBody({
      ...filled(),
      type: 24,
      base_url: 'https://eastus.tts.speech.microsoft.com',
      plugin: { 'voice.alloy': 'en-US-AvaNeural', 'voice.echo': '' },
    });
    expect(result.ok && result.body.plugin).toEqual({ voice: { alloy: 'en-US-AvaNeural' } });
    expect(flattenPlugin({ voice: { alloy: 'x' }, web_search: { enable: true } })).toEqual({
      'voice.alloy': 'x',
      'web_search.enable': true,
    });
  });

  it("keeps every type's connection settings: timeouts as numbers of seconds, the CA as text", () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    const stored = { upstream: { first_byte_timeout: 30, idle_timeout: 0.5, ca: pem } };
    const form = flattenPlugin(stored);
    expect(form).toEqual({
      'upstream.first_byte_timeout': '30',
      'upstream.idle_timeout': '0.5',
      'upstream.ca': pem,
    });
    const result = channelBody({ ...filled(), plugin: form });
    expect(result.ok && result.body.plugin).toEqual(stored);
    const bad = channelBody({ ...filled(), plugin: { 'upstream.connect_timeout': 'soon' } });
    expect(!bad.ok && bad.errors['plugin.upstream.connect_timeout']).toBeTruthy();
  });

  it('adds pasted models split by commas, without repeats', () => {
    expect(addModels(['a'], ['b, c', 'a', 'c\nd'])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('round-trips a stored channel into the form', () => {
    const view = {
      id: 1,
      type: 1,
      name: 'x',
      status: 1,
      priority: 2,
      weight: 3,
      base_url: '',
      other: '',
      models: ['m'],
      group: ['default'],
      tag: 't',
      model_mapping: { a: 'b' },
      model_headers: {},
      custom_parameter: {},
      plugin: {},
      proxy: '',
      test_model: 'm',
      only_chat: true,
      pre_cost: 2,
    } as unknown as ChannelView;
    const form = formFromChannel(view);
    expect(form).toMatchObject({ key: '', priority: '2', weight: '3', mapping: [{ key: 'a', value: 'b' }] });
    expect(channelBody(form, 1).ok).toBe(true);
  });

  it('finds the models no price covers, exact or by wildcard', () => {
    const priced = ['gpt-4o', 'claude-*', 'o3-*'];
    expect(unpricedModels(['gpt-4o', 'o3-mini', 'claude-x', 'new*', 'o3-*', 'gpt-4o-mini'], priced)).toEqual([
      'new*',
      'gpt-4o-mini',
    ]);
    expect(unpricedModels(['a', 'b'], [])).toEqual(['a', 'b']);
  });
});
