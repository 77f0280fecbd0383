import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { DONE_EVENT, formatErrorEvent, OpenAiStreamMeter } from './stream-meter.js';

const head =
  '"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_50cad350e4"';

function chunk(choices: unknown[], usage: unknown = null): string {
  return `{${head},"choices":${JSON.stringify(choices)},"usage":${JSON.stringify(usage)}}`;
}

const delta = (d: Record<string, unknown>, finish: string | null = null) => [
  { index: 0, delta: d, logprobs: null, finish_reason: finish },
];

const USAGE = {
  prompt_tokens: 19,
  completion_tokens: 10,
  total_tokens: 29,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

/** What OpenAI sends for a stream with include_usage: usage null on every chunk, then a usage-only chunk. */
function openAiStream(eol = '\n'): { text: string; usageEvent: string } {
  const events = [
    chunk(delta({ role: 'assistant', content: '', refusal: null })),
    chunk(delta({ content: 'Hello' })),
    chunk(delta({ content: ', wörld' })),
    chunk(delta({ content: ' 👋' })),
    chunk(delta({}, 'stop')),
  ].map((e) => `data: ${e}${eol}${eol}`);
  const usageEvent = `data: ${chunk([], USAGE)}${eol}${eol}`;
  return { text: `${events.join('')}${usageEvent}data: [DONE]${eol}${eol}`, usageEvent };
}

function run(meter: OpenAiStreamMeter, bytes: Buffer, cuts: number[]): Buffer {
  const out: Buffer[] = [];
  let prev = 0;
  for (const cut of [...cuts, bytes.length]) {
    const piece = bytes.subarray(prev, cut);
    out.push(...[meter.write(piece)].flat());
    prev = cut;
  }
  out.push(meter.end());
  return Buffer.concat(out);
}

function randomCuts(length: number, seed: number, count: number): number[] {
  let s = seed;
  const cuts = new Set<number>();
  while (cuts.size < Math.min(count, length - 1)) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    cuts.add(1 + (s % (length - 1)));
  }
  return [...cuts].sort((a, b) => a - b);
}

describe('OpenAiStreamMeter: reading', () => {
  const { text } = openAiStream();
  const bytes = Buffer.from(text);

  it('passes every chunk through untouched and reads usage at any split point', () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      const meter = new OpenAiStreamMeter();
      const first = bytes.subarray(0, cut);
      const second = bytes.subarray(cut);
      expect(meter.write(first)).toBe(first);
      expect(meter.write(second)).toBe(second);
      expect(meter.end().length).toBe(0);
      expect(meter.usage, `split at ${cut}`).toEqual({ ...emptyUsage(), inputTokens: 19, outputTokens: 10 });
      expect(meter.done).toBe(true);
      expect(meter.error).toBeNull();
    }
  });

  it('reads byte-by-byte, with CRLF and with lone CR line endings', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const b = Buffer.from(openAiStream(eol).text);
      const meter = new OpenAiStreamMeter();
      run(
        meter,
        b,
        Array.from({ length: b.length - 1 }, (_, i) => i + 1),
      );
      expect(meter.usage?.outputTokens).toBe(10);
      expect(meter.done).toBe(true);
      expect(meter.error).toBeNull();
    }
  });

  it('keeps the text of events read line by line in stream order, data split over lines included', () => {
    const split = `data: {"choices":[{"index":0,\ndata: "delta":{"content":"b"}}]}\n\n`;
    const b = Buffer.from(
      `data: ${chunk(delta({ content: 'a' }))}\n\n${split}data: ${chunk(delta({ content: 'c' }))}\n\n`,
    );
    const meter = new OpenAiStreamMeter();
    run(
      meter,
      b,
      Array.from({ length: b.length - 1 }, (_, i) => i + 1),
    );
    meter.end();
    expect(meter.completionText()).toBe('abc');
  });

  it('collects the generated text when no usage arrives', () => {
    const events = [
      chunk(delta({ role: 'assistant', content: null, reasoning_content: 'Think. ' })),
      chunk(
        delta({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        }),
      ),
      chunk(delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })),
      chunk(delta({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] })),
      chunk([{ index: 1, delta: { content: 'second choice' }, finish_reason: null }]),
      chunk(delta({}, 'tool_calls')),
    ];
    const b = Buffer.from(`${events.map((e) => `data:${e}\n\n`).join('')}data: [DONE]\n\n`);
    const meter = new OpenAiStreamMeter();
    run(meter, b, randomCuts(b.length, 7, 40));
    expect(meter.usage).toBeNull();
    expect(meter.completionText()).toBe('Think. get_weather{"city":"Paris"}second choice');
  });

  it('keeps the text bounded by reducing retained events early', () => {
    const events = Array.from({ length: 200 }, (_, i) => `data: ${chunk(delta({ content: `w${i} ` }))}\n\n`);
    const meter = new OpenAiStreamMeter({ maxRetainedBytes: 2000 });
    for (const e of events) meter.write(Buffer.from(e));
    meter.end();
    expect(meter.completionText()).toBe(Array.from({ length: 200 }, (_, i) => `w${i} `).join(''));
  });

  it('stops collecting once usage with output arrives, and ignores all-zero usage', () => {
    const zero = `data: ${chunk(delta({ content: 'abc' }), { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 })}\n\n`;
    const meter = new OpenAiStreamMeter();
    meter.write(Buffer.from(zero));
    expect(meter.usage).toBeNull();
    meter.write(Buffer.from(`data: ${chunk([], USAGE)}\n\n`));
    meter.write(Buffer.from(`data: ${chunk(delta({ content: 'late' }))}\n\n`));
    meter.end();
    expect(meter.usage?.inputTokens).toBe(19);
    // The text kept until then is let go too: with output tokens reported it is never counted.
    expect(meter.completionText()).toBe('');

    const zeroOnly = new OpenAiStreamMeter();
    zeroOnly.write(Buffer.from(zero));
    zeroOnly.write(Buffer.from(`data: ${chunk(delta({ content: 'def' }))}\n\n`));
    zeroOnly.end();
    expect(zeroOnly.usage).toBeNull();
    expect(zeroOnly.completionText()).toBe('abcdef');
  });

  it('finds vendor usage placements: per choice (Moonshot) and x_groq', () => {
    const moonshot = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"moonshot-v1-8k","choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":8,"completion_tokens":3,"total_tokens":11}}]}\n\ndata: [DONE]\n\n`;
    const m1 = new OpenAiStreamMeter();
    m1.write(Buffer.from(moonshot));
    expect(m1.usage?.outputTokens).toBe(3);
    const groq = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"llama","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"x_groq":{"id":"req_1","usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}}\n\n`;
    const m2 = new OpenAiStreamMeter();
    m2.write(Buffer.from(groq));
    expect(m2.usage?.inputTokens).toBe(5);
  });

  it('reads legacy completions and Responses streams', () => {
    const legacy = `data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"gpt-3.5-turbo-instruct","choices":[{"text":"Hi there","index":0,"logprobs":null,"finish_reason":null}]}\n\ndata: [DONE]\n\n`;
    const m1 = new OpenAiStreamMeter();
    m1.write(Buffer.from(legacy));
    expect(m1.completionText()).toBe('Hi there');
    const responses = [
      'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1","status":"in_progress","error":null,"usage":null}}\n\n',
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}\n\n',
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"lo"}\n\n',
      'event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp_1","status":"completed","error":null,"usage":{"input_tokens":11,"input_tokens_details":{"cached_tokens":0},"output_tokens":2,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":13}}}\n\n',
    ].join('');
    const m2 = new OpenAiStreamMeter();
    const b = Buffer.from(responses);
    run(m2, b, randomCuts(b.length, 3, 25));
    expect(m2.usage).toEqual({ ...emptyUsage(), inputTokens: 11, outputTokens: 2 });
    expect(m2.error).toBeNull();
  });

  it('handles comments, field-only lines, multi-line data and a missing final blank line', () => {
    const b = Buffer.from(
      `: keep-alive\n\nretry: 3000\n\ndata: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m",\ndata: "choices":[{"index":0,"delta":{"content":"two lines"}}]}\n\ndata: [DONE]`,
    );
    const meter = new OpenAiStreamMeter();
    expect(meter.write(b)).toBe(b);
    expect(meter.done).toBe(false);
    meter.end();
    expect(meter.done).toBe(true);
    expect(meter.completionText()).toBe('two lines');
  });

  it('detects an error event mid-stream in both shapes', () => {
    const dataError = `data: ${chunk(delta({ content: 'Hel' }))}\n\ndata: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}\n\n`;
    const m1 = new OpenAiStreamMeter();
    run(m1, Buffer.from(dataError), [30, 400]);
    expect(m1.error).toEqual({
      message: 'The server had an error while processing your request.',
      type: 'server_error',
      code: null,
      param: null,
    });
    expect(m1.done).toBe(false);
    expect(m1.completionText()).toBe('Hel');

    const named = 'event: error\ndata: {"message":"overloaded","code":"overloaded_error"}\n\n';
    const m2 = new OpenAiStreamMeter();
    m2.write(Buffer.from(named));
    expect(m2.error).toMatchObject({ message: 'overloaded', code: 'overloaded_error' });
    const plain = new OpenAiStreamMeter();
    plain.write(Buffer.from('event: error\ndata: upstream went away\n\n'));
    expect(plain.error?.message).toBe('upstream went away');
    // Content that merely mentions "error" is not an error.
    const benign = new OpenAiStreamMeter();
    benign.write(
      Buffer.from(
        `data: ${chunk(delta({ content: '"error"' }))}\n\ndata: ${chunk(delta({ content: 'error' }))}\n\n`,
      ),
    );
    expect(benign.error).toBeNull();
    expect(benign.completionText()).toBe('"error"error');
  });
});

describe('OpenAiStreamMeter: runs of events passed over unread', () => {
  const many = (n: number, withUsage: boolean) => {
    const events = Array.from({ length: n }, (_, i) => `data: ${chunk(delta({ content: `t${i} ` }))}\n\n`);
    const tail = withUsage ? `data: ${chunk([], USAGE)}\n\n` : '';
    return Buffer.from(`: keep-alive\n\n${events.join('')}${tail}data: [DONE]\n\n`);
  };
  const text = (n: number) => Array.from({ length: n }, (_, i) => `t${i} `).join('');

  it('reads a stream that arrives in one chunk exactly as one that arrives byte by byte', () => {
    for (const withUsage of [true, false]) {
      for (const drop of [true, false]) {
        const b = many(40, withUsage);
        const whole = new OpenAiStreamMeter({ dropUsageChunk: drop });
        const bytes = new OpenAiStreamMeter({ dropUsageChunk: drop });
        const outWhole = run(whole, b, []);
        const outBytes = run(
          bytes,
          b,
          Array.from({ length: b.length - 1 }, (_, i) => i + 1),
        );
        expect(outWhole.toString()).toBe(outBytes.toString());
        expect(whole.usage).toEqual(bytes.usage);
        expect(whole.done).toBe(true);
        expect(bytes.done).toBe(true);
        expect(whole.completionText()).toBe(bytes.completionText());
        if (!withUsage) expect(whole.completionText()).toBe(text(40));
        if (drop && withUsage) expect(outWhole.toString()).not.toContain('"prompt_tokens"');
      }
    }
  });

  it('keeps the text of a stream that arrives one event per chunk, without usage', () => {
    const meter = new OpenAiStreamMeter();
    const b = many(120, false);
    const events = b.toString().split(/(?<=\n\n)/);
    for (const e of events) meter.write(Buffer.from(e));
    meter.end();
    expect(meter.done).toBe(true);
    expect(meter.completionText()).toBe(text(120));
  });

  it('counts the text of passed-over runs when they outgrow the retention bound', () => {
    const meter = new OpenAiStreamMeter({ maxRetainedBytes: 500 });
    const b = many(60, false);
    meter.write(b.subarray(0, 3000));
    meter.write(b.subarray(3000));
    meter.end();
    expect(meter.usage).toBeNull();
    expect(meter.completionText()).toBe(text(60));
  });

  it('stops at an error or a usage object inside a long run, but not at usage: null', () => {
    // Each holds the tail of a needle the meter searches for, without the bytes that make it a mark.
    const LOOKALIKE = 'prevent: usage" error" terror" mirror" UNDONE] [x]';
    const plain = Array.from({ length: 20 }, () => `data: ${chunk(delta({ content: 'x' }))}\n\n`).join('');
    const failed = new OpenAiStreamMeter();
    failed.write(
      Buffer.from(`${plain}data: {"error":{"message":"overloaded","type":"server_error"}}\n\n${plain}`),
    );
    expect(failed.error?.message).toBe('overloaded');

    const eventError = new OpenAiStreamMeter();
    eventError.write(Buffer.from(`${plain}event: error\ndata: upstream fell over\n\n`));
    expect(eventError.error?.message).toBe('upstream fell over');

    // A mark on the very first byte of a chunk, and words that only look like marks.
    const atStart = new OpenAiStreamMeter();
    atStart.write(Buffer.from(plain));
    atStart.write(Buffer.from('event: error\ndata: gone at once\n\n'));
    expect(atStart.error?.message).toBe('gone at once');
    const lookalikes = new OpenAiStreamMeter();
    lookalikes.write(Buffer.from(plain));
    lookalikes.write(Buffer.from(`data: ${chunk(delta({ content: LOOKALIKE }))}\n\n${plain}`));
    expect(lookalikes.error).toBeNull();
    expect(lookalikes.completionText()).toBe(`${'x'.repeat(20)}${LOOKALIKE}${'x'.repeat(20)}`);

    const spaced = new OpenAiStreamMeter();
    spaced.write(Buffer.from(`${plain}data: {${head},"choices":[],"usage" : ${JSON.stringify(USAGE)}}\n\n`));
    expect(spaced.usage?.outputTokens).toBe(10);
  });
});

describe('OpenAiStreamMeter: dropping the usage chunk', () => {
  for (const eol of ['\n', '\r\n', '\r']) {
    const { text, usageEvent } = openAiStream(eol);
    const bytes = Buffer.from(text);
    const expected = Buffer.from(text.replace(usageEvent, ''));

    it(`removes exactly the usage-only event at every split point (${JSON.stringify(eol)})`, () => {
      for (let cut = 1; cut < bytes.length; cut++) {
        const meter = new OpenAiStreamMeter({ dropUsageChunk: true });
        const out = run(meter, bytes, [cut]);
        expect(out.equals(expected), `split at ${cut}`).toBe(true);
        expect(meter.usage?.outputTokens).toBe(10);
        expect(meter.droppedUsageChunk).toBe(true);
      }
    });

    it(`is byte-exact under many random splits (${JSON.stringify(eol)})`, () => {
      for (let seed = 1; seed <= 30; seed++) {
        const meter = new OpenAiStreamMeter({ dropUsageChunk: true });
        const out = run(meter, bytes, randomCuts(bytes.length, seed, 1 + (seed % 60)));
        expect(out.equals(expected), `seed ${seed}`).toBe(true);
      }
    });
  }

  it('handles a CRLF split between CR and LF right after the usage event', () => {
    const { text, usageEvent } = openAiStream('\r\n');
    const bytes = Buffer.from(text);
    const cut = text.indexOf(usageEvent) + usageEvent.length - 1;
    const meter = new OpenAiStreamMeter({ dropUsageChunk: true });
    expect(run(meter, bytes, [cut]).toString()).toBe(text.replace(usageEvent, ''));
  });

  it('leaves the event out of a whole stream in one chunk without copying the chunk', () => {
    const { text, usageEvent } = openAiStream('\n');
    // Its own memory, not Buffer's shared pool, so a copy could not share it by chance.
    const bytes = Buffer.alloc(Buffer.byteLength(text));
    bytes.write(text);
    const meter = new OpenAiStreamMeter({ dropUsageChunk: true });
    const out = meter.write(bytes);
    expect(Array.isArray(out)).toBe(true);
    const pieces = out as Buffer[];
    // The event's neighbours come back as views of the chunk, each line's run joined into one.
    expect(pieces.map((p) => p.toString())).toEqual(text.split(usageEvent));
    for (const p of pieces) expect(p.buffer).toBe(bytes.buffer);
    expect(meter.end().length).toBe(0);
  });

  it('keeps usage that rides on a chunk with choices, and forwards an unterminated tail', () => {
    const withChoices = `data: ${chunk(delta({ content: 'x' }, 'stop'), USAGE)}\n\ndata: [DONE]`;
    const meter = new OpenAiStreamMeter({ dropUsageChunk: true });
    const out = Buffer.concat([meter.write(Buffer.from(withChoices)), meter.end()].flat());
    expect(out.toString()).toBe(withChoices);
    expect(meter.droppedUsageChunk).toBe(false);
    expect(meter.usage?.outputTokens).toBe(10);
  });

  it('writes error and end events a client can read', () => {
    const err = new OpenAiStreamMeter();
    err.write(formatErrorEvent({ message: 'boom', type: 'upstream_error', code: null, param: null }));
    expect(err.error?.message).toBe('boom');
    err.write(DONE_EVENT);
    expect(err.done).toBe(true);
  });
});
