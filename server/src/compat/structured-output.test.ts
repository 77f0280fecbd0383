import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, jsonSchema } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODELS, type ProtocolRig, resetRig, startProtocolRig } from '../test/protocol-fixtures.js';

// Issue 31 item 1 as clients see it: OpenAI's response_format on an Anthropic channel becomes a
// forced tool whose input is the answer's JSON (plain or streamed), and a field Anthropic cannot
// honour (n > 1, penalties, seed, log-probabilities) is a 400 naming it, never silently dropped.

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'number' } },
  required: ['city', 'population'],
  additionalProperties: false,
} as const;
const ANSWER = { city: 'Lyon', population: 522000 };

describe('compat: structured output and refused fields on an Anthropic channel', () => {
  let rig: ProtocolRig;
  let openai: OpenAI;

  beforeAll(async () => {
    rig = await startProtocolRig();
    openai = new OpenAI({ apiKey: rig.userKey, baseURL: `${rig.root}/v1`, maxRetries: 0 });
  });
  afterAll(async () => rig?.close());
  beforeEach(async () => {
    await resetRig(rig);
    // What Anthropic answers when a tool is forced: a tool_use block with the input.
    rig.anthropic.setScenario({ kind: 'ok', toolCalls: [{ name: 'json_output', input: ANSWER }], chunks: 3 });
  });

  const lastUpstream = () => rig.anthropic.requests.at(-1)?.json as Record<string, unknown>;

  it('maps json_schema to a forced tool and returns its input as the message text', async () => {
    const res = await openai.chat.completions.create({
      model: MODELS.anthropic,
      messages: [{ role: 'user', content: 'Largest city of the Rhône?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema: SCHEMA, strict: true } },
    });
    expect(JSON.parse(res.choices[0]!.message.content!)).toEqual(ANSWER);
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.choices[0]!.message.tool_calls).toBeUndefined();
    const sent = lastUpstream();
    expect(sent.tools).toEqual([expect.objectContaining({ name: 'json_output', input_schema: SCHEMA })]);
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'json_output' });
  });

  it('streams the JSON as content deltas', async () => {
    const stream = await openai.chat.completions.create({
      model: MODELS.anthropic,
      messages: [{ role: 'user', content: 'Largest city of the Rhône?' }],
      response_format: { type: 'json_object' },
      stream: true,
    });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      expect(chunk.choices[0]?.delta.tool_calls).toBeUndefined();
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(JSON.parse(text)).toEqual(ANSWER);
    expect(finish).toBe('stop');
    expect(lastUpstream().tool_choice).toEqual({ type: 'tool', name: 'json_output' });
  });

  it("serves Vercel ai's generateObject and LangChain's json_schema structured output", async () => {
    const provider = createOpenAI({ apiKey: rig.userKey, baseURL: `${rig.root}/v1` });
    const { object } = await generateObject({
      model: provider.chat(MODELS.anthropic),
      schema: jsonSchema<typeof ANSWER>(SCHEMA),
      prompt: 'Largest city of the Rhône?',
      maxRetries: 0,
    });
    expect(object).toEqual(ANSWER);
    expect(lastUpstream().tool_choice).toEqual({ type: 'tool', name: 'json_output' });

    const chat = new ChatOpenAI({
      model: MODELS.anthropic,
      apiKey: rig.userKey,
      configuration: { baseURL: `${rig.root}/v1` },
      maxRetries: 0,
    });
    const structured = chat.withStructuredOutput(SCHEMA, { name: 'city', method: 'jsonSchema' });
    expect(await structured.invoke('Largest city of the Rhône?')).toEqual(ANSWER);
  });

  it('refuses n > 1 and the fields Anthropic cannot honour with a 400 naming them', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ n: 3 }, 'n'],
      [{ frequency_penalty: 0.5 }, 'frequency_penalty'],
      [{ presence_penalty: 1 }, 'presence_penalty'],
      [{ logprobs: true }, 'logprobs'],
      [{ seed: 7 }, 'seed'],
      [{ logit_bias: { 50256: -100 } }, 'logit_bias'],
    ];
    for (const [extra, param] of cases) {
      const err = await openai.chat.completions
        .create({
          model: MODELS.anthropic,
          messages: [{ role: 'user', content: 'hi' }],
          ...extra,
        } as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .catch((e) => e);
      expect(err, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.param, param).toBe(param);
      expect(err.message).toContain(param);
    }
    // Default values ask for nothing and pass.
    const ok = await openai.chat.completions.create({
      model: MODELS.anthropic,
      messages: [{ role: 'user', content: 'hi' }],
      n: 1,
      frequency_penalty: 0,
      presence_penalty: 0,
    });
    expect(ok.choices).toHaveLength(1);
    expect(rig.anthropic.requests).toHaveLength(1);
  });
});
