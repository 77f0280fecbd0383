import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A real HTTP server on an ephemeral port that answers like an Azure OpenAI resource:
// `/openai/deployments/{deployment}/{operation}?api-version=...` with the key in `api-key`,
// chat completions as JSON or SSE with Azure's extras (a first chunk with empty `choices` and
// `prompt_filter_results`, `content_filter_results` on choices, usage only when asked for),
// embeddings, image generation, speech (audio bytes) and transcription, and Azure's error bodies:
// 401 access denied, 404 DeploymentNotFound / missing api-version, 400 content_filter with its
// innererror, 429 with retry-after. Test side only.

export interface RecordedAzureRequest {
  path: string;
  deployment: string;
  operation: string;
  apiVersion: string | null;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: Record<string, unknown> | undefined;
}

export type AzureScenario =
  | {
      kind: 'ok';
      content?: string;
      promptTokens?: number;
      cachedTokens?: number;
      /** Function calls after the content; each call's arguments arrive in two fragments. */
      toolCalls?: { name: string; arguments: string }[];
    }
  | { kind: 'contentFilter' }
  | { kind: 'rateLimited' };

export interface FakeAzureOptions {
  apiKey: string;
  deployments: string[];
}

export interface FakeAzure {
  url: string;
  requests: RecordedAzureRequest[];
  setScenario(s: AzureScenario): void;
  reset(): void;
  close(): Promise<void>;
}

const PATH = /^\/openai\/deployments\/([^/]+)\/(.+)$/;
const FILTER_OK = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export async function startFakeAzure(options: FakeAzureOptions): Promise<FakeAzure> {
  const requests: RecordedAzureRequest[] = [];
  let scenario: AzureScenario = { kind: 'ok' };
  let counter = 0;

  function chat(res: ServerResponse, rec: RecordedAzureRequest, s: AzureScenario & { kind: 'ok' }) {
    const calls = s.toolCalls ?? [];
    const content = s.content ?? (calls.length ? '' : 'Hello from the fake Azure resource.');
    const words = content ? content.split(/(?<=\s)/) : [];
    const finish = calls.length ? 'tool_calls' : 'stop';
    const toolCalls = calls.map((c, i) => ({
      id: `call_azure${counter}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
    const prompt = s.promptTokens ?? 12;
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: words.length,
      total_tokens: prompt + words.length,
      prompt_tokens_details: { cached_tokens: s.cachedTokens ?? 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    const id = `chatcmpl-azure${counter}`;
    const created = Math.floor(Date.now() / 1000);
    // Azure reports the model behind the deployment, not the deployment name.
    const model = 'gpt-4o-2024-11-20';
    if (rec.json?.stream !== true) {
      return send(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTER_OK }],
        choices: [
          {
            index: 0,
            finish_reason: finish,
            message: {
              role: 'assistant',
              content: content || null,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            content_filter_results: FILTER_OK,
          },
        ],
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = (v: unknown) => res.write(`data: ${JSON.stringify(v)}\n\n`);
    event({
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTER_OK }],
    });
    const base = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_azure' };
    event({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    for (const w of words)
      event({
        ...base,
        choices: [
          { index: 0, delta: { content: w }, finish_reason: null, content_filter_results: FILTER_OK },
        ],
      });
    toolCalls.forEach((call, index) => {
      const args = call.function.arguments;
      const half = Math.floor(args.length / 2);
      event({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index,
                  id: call.id,
                  type: 'function',
                  function: { name: call.function.name, arguments: '' },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      });
      for (const part of [args.slice(0, half), args.slice(half)])
        event({
          ...base,
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index, function: { arguments: part } }] },
              finish_reason: null,
            },
          ],
        });
    });
    event({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
    const opts = rec.json?.stream_options as { include_usage?: boolean } | undefined;
    if (opts?.include_usage) event({ ...base, choices: [], usage });
    res.end('data: [DONE]\n\n');
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    counter++;
    const u = new URL(req.url ?? '/', 'http://fake.local');
    const m = PATH.exec(u.pathname);
    let json: Record<string, unknown> | undefined;
    if (String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      try {
        json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
    }
    const rec: RecordedAzureRequest = {
      path: u.pathname,
      deployment: decodeURIComponent(m?.[1] ?? ''),
      operation: m?.[2] ?? '',
      apiVersion: u.searchParams.get('api-version'),
      headers: req.headers,
      body,
      json,
    };
    requests.push(rec);
    if (req.headers['api-key'] !== options.apiKey) {
      return send(res, 401, {
        error: {
          code: '401',
          message:
            'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      });
    }
    if (!rec.apiVersion) return send(res, 404, { error: { code: '404', message: 'Resource not found' } });
    if (!m || !options.deployments.includes(rec.deployment)) {
      return send(res, 404, {
        error: {
          code: 'DeploymentNotFound',
          message:
            'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
        },
      });
    }
    const s = scenario;
    if (s.kind === 'contentFilter') {
      return send(res, 400, {
        error: {
          message:
            "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
          type: null,
          param: 'prompt',
          code: 'content_filter',
          status: 400,
          innererror: {
            code: 'ResponsibleAIPolicyViolation',
            content_filter_result: { ...FILTER_OK, violence: { filtered: true, severity: 'medium' } },
          },
        },
      });
    }
    if (s.kind === 'rateLimited') {
      return send(
        res,
        429,
        {
          error: {
            code: '429',
            message: `Requests to the ChatCompletions_Create Operation under Azure OpenAI API version ${rec.apiVersion} have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 6 seconds.`,
          },
        },
        { 'retry-after': '6' },
      );
    }
    switch (rec.operation) {
      case 'chat/completions':
        return chat(res, rec, s);
      case 'embeddings': {
        const input = json?.input;
        const n = Array.isArray(input) ? input.length : 1;
        return send(res, 200, {
          object: 'list',
          model: 'text-embedding-3-small',
          data: Array.from({ length: n }, (_, index) => ({
            object: 'embedding',
            index,
            embedding: [0.1, -0.2, 0.3],
          })),
          usage: { prompt_tokens: 4 * n, total_tokens: 4 * n },
        });
      }
      case 'images/generations':
        return send(res, 200, {
          created: Math.floor(Date.now() / 1000),
          data: [
            {
              url: 'https://dalleprodsec.blob.core.windows.net/private/images/fake.png',
              revised_prompt: String(json?.prompt ?? ''),
              content_filter_results: FILTER_OK,
            },
          ],
        });
      case 'audio/speech': {
        const audio = Buffer.from(`ID3fake-audio:${String(json?.input ?? '')}`);
        res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': audio.length });
        return res.end(audio);
      }
      case 'audio/transcriptions':
        if (!String(req.headers['content-type'] ?? '').startsWith('multipart/form-data'))
          return send(res, 400, {
            error: { code: 'invalidPayload', message: 'multipart/form-data expected' },
          });
        return send(res, 200, { text: 'fake transcription' });
      default:
        return send(res, 404, { error: { code: '404', message: 'Resource not found' } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    setScenario(s) {
      scenario = s;
    },
    reset() {
      requests.length = 0;
      scenario = { kind: 'ok' };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
