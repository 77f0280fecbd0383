import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../test/fake-upstream.js';
import { fetchModelList, modelIdsOf } from './models-list.js';
import { UpstreamCallError } from './upstream-json.js';

describe('upstream model lists', () => {
  let up: FakeUpstream;
  let agent: Agent;

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: 'sk-list', models: ['b-model', 'a-model', 'b-model', 'c-model'] });
    agent = new Agent();
  });
  afterAll(async () => {
    await agent?.close();
    await up?.close();
  });

  it('GETs <root>/models with the key and returns ids once each, in the upstream order', async () => {
    const ids = await fetchModelList(agent, { type: 8, baseUrl: up.url, key: 'sk-list', other: '' });
    expect(ids).toEqual(['b-model', 'a-model', 'c-model']);
    const req = up.requests.at(-1)!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/v1/models');
    expect(req.authorization).toBe('Bearer sk-list');
  });

  it('Azure lists the resource models with its api-version and api-key header', async () => {
    await fetchModelList(agent, { type: 3, baseUrl: up.url, key: 'sk-list', other: '2024-10-21' });
    const req = up.requests.at(-1)!;
    expect(req.path).toBe('/openai/models');
    expect(req.query.get('api-version')).toBe('2024-10-21');
    expect(req.headers['api-key']).toBe('sk-list');
  });

  it('reports the upstream error message', async () => {
    await expect(
      fetchModelList(agent, { type: 8, baseUrl: up.url, key: 'wrong', other: '' }),
    ).rejects.toThrow(/answered 401: Incorrect API key/);
  });

  it('reads OpenAI lists and bare arrays, and refuses anything else', () => {
    expect(modelIdsOf({ object: 'list', data: [{ id: 'x' }, { id: ' y ' }, { id: '' }, {}] })).toEqual([
      'x',
      'y',
    ]);
    expect(modelIdsOf([{ id: 'x' }, 'z'])).toEqual(['x', 'z']);
    expect(() => modelIdsOf({ models: [] })).toThrow(UpstreamCallError);
  });
});
