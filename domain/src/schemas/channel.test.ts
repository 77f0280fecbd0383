import { describe, expect, it } from 'vitest';
import { channelCreateInput, channelUpdateInput, modelNameProblem } from './channel.js';

const valid = { type: 1, name: 'n', key: 'k', models: 'a, b\nc', group: 'default,vip,default' };

describe('channel schemas', () => {
  it('accept trailing wildcards only, after at least one character', () => {
    for (const ok of ['gpt-4o', 'gpt-4*', 'a*', 'org/model:tag']) expect(modelNameProblem(ok), ok).toBeNull();
    for (const bad of ['*', 'gpt-*-mini', '**', 'a**', '', 'has space', 'a,b', 'x'.repeat(192)])
      expect(modelNameProblem(bad), bad).not.toBeNull();
  });

  it('read models and groups as arrays or comma/newline text, with defaults filled in', () => {
    const c = channelCreateInput.parse(valid);
    expect(c.models).toEqual(['a', 'b', 'c']);
    expect(c.group).toEqual(['default', 'vip']);
    expect(c).toMatchObject({
      priority: 0,
      weight: 1,
      status: 1,
      pre_cost: 1,
      model_mapping: {},
      base_url: '',
    });
  });

  it('parse JSON fields from text or objects and refuse anything but objects of the right values', () => {
    expect(channelCreateInput.parse({ ...valid, model_mapping: '{"a":"+b"}' }).model_mapping).toEqual({
      a: '+b',
    });
    expect(channelCreateInput.parse({ ...valid, model_headers: { 'x-k': 'v' } }).model_headers).toEqual({
      'x-k': 'v',
    });
    expect(channelCreateInput.parse({ ...valid, custom_parameter: '' }).custom_parameter).toEqual({});
    for (const bad of ['[1]', '"s"', '{', '{"a":1}', 'null'])
      expect(channelCreateInput.safeParse({ ...valid, model_mapping: bad }).success, bad).toBe(false);
    expect(channelCreateInput.safeParse({ ...valid, plugin: [] }).success).toBe(false);
  });

  it('leave every field out of an update unless it was sent', () => {
    expect(channelUpdateInput.parse({ id: 3, priority: 2 })).toEqual({ id: 3, priority: 2 });
    expect(channelUpdateInput.safeParse({ id: 3, weight: 0 }).success).toBe(false);
    expect(channelUpdateInput.safeParse({ id: 3, used_quota: 1 }).success).toBe(false);
  });

  it('trim base URLs and refuse what is not http(s)', () => {
    expect(
      channelCreateInput.parse({ ...valid, base_url: ' https://a.example/v1/ \n\nhttp://b:8080 ' }).base_url,
    ).toBe('https://a.example/v1\nhttp://b:8080');
    expect(channelCreateInput.safeParse({ ...valid, base_url: 'javascript:alert(1)' }).success).toBe(false);
  });
});
