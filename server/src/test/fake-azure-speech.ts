import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A real HTTP server on an ephemeral port that answers like Azure Speech text to speech
// (`POST /cognitiveservices/v1`): it checks `Ocp-Apim-Subscription-Key`, the SSML content type and
// document, and the `X-Microsoft-OutputFormat`, and answers audio bytes that start with the
// format's magic number. Failures look like Azure's: 401 with a JSON error, 400 and 429 with an
// empty body. Test side only.

export interface RecordedSpeechRequest {
  headers: IncomingHttpHeaders;
  ssml: string;
  voice: string | undefined;
  lang: string | undefined;
  text: string;
}

export interface FakeAzureSpeech {
  url: string;
  requests: RecordedSpeechRequest[];
  /** The next request answers 429. */
  throttleNext(): void;
  close(): Promise<void>;
}

const MAGIC: Record<string, { mime: string; bytes: string }> = {
  'audio-24khz-160kbitrate-mono-mp3': { mime: 'audio/mpeg', bytes: 'ID3' },
  'ogg-24khz-16bit-mono-opus': { mime: 'audio/ogg', bytes: 'OggS' },
  'riff-24khz-16bit-mono-pcm': { mime: 'audio/x-wav', bytes: 'RIFF' },
  'raw-24khz-16bit-mono-pcm': { mime: 'audio/basic', bytes: '\u0000\u0000' },
};

function empty(res: ServerResponse, status: number) {
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}

export async function startFakeAzureSpeech(options: { key: string }): Promise<FakeAzureSpeech> {
  const requests: RecordedSpeechRequest[] = [];
  let throttle = false;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const ssml = Buffer.concat(chunks).toString('utf8');
    const voice = /<voice\s+name="([^"]+)"/.exec(ssml)?.[1];
    const lang = /xml:lang="([^"]+)"/.exec(ssml)?.[1];
    const text = ssml.replace(/<[^>]+>/g, '');
    requests.push({ headers: req.headers, ssml, voice, lang, text });
    if (req.headers['ocp-apim-subscription-key'] !== options.key) {
      const body = JSON.stringify({
        error: {
          code: '401',
          message: 'Access denied due to invalid subscription key or wrong API endpoint.',
        },
      });
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end(body);
    }
    if (throttle) {
      throttle = false;
      return empty(res, 429);
    }
    if (new URL(req.url ?? '/', 'http://fake.local').pathname !== '/cognitiveservices/v1')
      return empty(res, 404);
    const format = MAGIC[String(req.headers['x-microsoft-outputformat'] ?? '')];
    if (
      req.headers['content-type'] !== 'application/ssml+xml' ||
      !format ||
      !voice ||
      !ssml.startsWith('<speak')
    )
      return empty(res, 400);
    const audio = Buffer.from(`${format.bytes}fake-audio(${voice}):${text}`);
    res.writeHead(200, { 'content-type': format.mime, 'content-length': audio.length });
    res.end(audio);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    throttleNext() {
      throttle = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
