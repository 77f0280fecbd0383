import { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAzure, startFakeAzure } from './fake-azure.js';

// The official SDK's Azure client parsing the fake's replies proves the fake speaks Azure's wire.

let fake: FakeAzure;
let client: AzureOpenAI;
beforeAll(async () => {
  fake = await startFakeAzure({ apiKey: 'azure-key', deployments: ['gpt-4o', 'emb'] });
  client = new AzureOpenAI({
    endpoint: fake.url,
    apiKey: 'azure-key',
    apiVersion: '2024-10-21',
    maxRetries: 0,
  });
});
afterAll(() => fake.close());

describe('fake Azure OpenAI driven by the official SDK', () => {
  it('answers chat on the deployment URL with the api-version', async () => {
    const r = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(r.choices[0]?.message.content).toBe('Hello from the fake Azure resource.');
    expect(fake.requests.at(-1)).toMatchObject({
      deployment: 'gpt-4o',
      operation: 'chat/completions',
      apiVersion: '2024-10-21',
    });
  });

  it('streams with the prompt-filter chunk first and usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    let usage: unknown = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from the fake Azure resource.');
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 6 });
  });

  it('answers embeddings and the Azure errors', async () => {
    const e = await client.embeddings.create({ model: 'emb', input: ['a', 'b'] });
    expect(e.data).toHaveLength(2);
    await expect(client.chat.completions.create({ model: 'missing', messages: [] })).rejects.toMatchObject({
      status: 404,
      code: 'DeploymentNotFound',
    });
    fake.setScenario({ kind: 'contentFilter' });
    await expect(client.chat.completions.create({ model: 'gpt-4o', messages: [] })).rejects.toMatchObject({
      status: 400,
      code: 'content_filter',
    });
    fake.reset();
    const wrong = new AzureOpenAI({
      endpoint: fake.url,
      apiKey: 'nope',
      apiVersion: '2024-10-21',
      maxRetries: 0,
    });
    await expect(wrong.chat.completions.create({ model: 'gpt-4o', messages: [] })).rejects.toMatchObject({
      status: 401,
    });
  });
});
