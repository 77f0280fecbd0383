import { emptyUsage, type Usage } from '../../billing/pricing/usage.js';
import type { OpenAiChannel } from '../openai/request.js';
import { asNumber, asRecord, asString, type JsonRecord } from '../translate/json-reading.js';
import { TranslationError } from '../translate/translation-error.js';
import { ChannelConfigError, type UpstreamRequest, upstreamRequest } from '../upstream-request.js';

// Azure AI Speech text to speech behind OpenAI's `POST /v1/audio/speech`: the JSON body becomes
// SSML sent to `https://{region}.tts.speech.microsoft.com/cognitiveservices/v1` with the resource
// key in `Ocp-Apim-Subscription-Key` and the audio format in `X-Microsoft-OutputFormat`. OpenAI's
// six voices map to Azure voices through the channel's `plugin.voice.*` fields, with
// defaults; a voice that is already an Azure voice name passes as it is. Billing is by input
// characters, which are known before sending, so the usage is exact.

export const OPENAI_VOICES = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'] as const;
export type OpenAiVoice = (typeof OPENAI_VOICES)[number];

/** Used when the channel leaves a voice unmapped. */
export const DEFAULT_AZURE_VOICES: Readonly<Record<OpenAiVoice, string>> = {
  alloy: 'en-US-AvaMultilingualNeural',
  echo: 'en-US-AndrewMultilingualNeural',
  fable: 'en-GB-RyanNeural',
  onyx: 'en-US-BrianMultilingualNeural',
  nova: 'en-US-EmmaMultilingualNeural',
  shimmer: 'en-US-JennyNeural',
};

/** OpenAI's limit on `input`, which clients of the endpoint are written against. */
export const MAX_INPUT_CHARACTERS = 4096;

const AZURE_VOICE_NAME =
  /^[a-z]{2,3}-[A-Z]{2,4}(-[A-Za-z]+)?-[A-Za-z0-9]+Neural$|^[a-z]{2,3}-[A-Z]{2,4}-[A-Za-z0-9:]+$/;

/** `response_format` -> Azure output format and the reply's media type. */
const FORMATS: Readonly<Record<string, { azure: string; mime: string }>> = {
  mp3: { azure: 'audio-24khz-160kbitrate-mono-mp3', mime: 'audio/mpeg' },
  opus: { azure: 'ogg-24khz-16bit-mono-opus', mime: 'audio/ogg' },
  wav: { azure: 'riff-24khz-16bit-mono-pcm', mime: 'audio/wav' },
  pcm: { azure: 'raw-24khz-16bit-mono-pcm', mime: 'audio/pcm' },
};

/** The channel's `plugin.voice` map, keeping only the six voices with non-empty names. */
export function voiceMapFromPlugin(plugin: unknown): Partial<Record<OpenAiVoice, string>> {
  const voice = asRecord(asRecord(plugin)?.voice);
  const out: Partial<Record<OpenAiVoice, string>> = {};
  for (const v of OPENAI_VOICES) {
    const name = asString(voice?.[v])?.trim();
    if (name) out[v] = name;
  }
  return out;
}

/** The Azure voice for the client's `voice`. */
export function resolveAzureVoice(voice: string, map: Partial<Record<OpenAiVoice, string>>): string {
  const key = voice.toLowerCase() as OpenAiVoice;
  if ((OPENAI_VOICES as readonly string[]).includes(key)) return map[key] ?? DEFAULT_AZURE_VOICES[key];
  if (AZURE_VOICE_NAME.test(voice)) return voice;
  throw new TranslationError(`voice must be one of ${OPENAI_VOICES.join(', ')} or an Azure voice name`);
}

function escapeXml(s: string): string {
  return s.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );
}

/** XML 1.0 forbids control characters other than tab, LF and CR; Azure rejects SSML with them. */
function withoutXmlControls(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) out += ch;
  }
  return out;
}

/** The SSML document; the language comes from the voice's locale, the speed becomes a rate. */
export function buildSsml(text: string, voice: string, speed: number | undefined): string {
  const lang = /^([a-z]{2,3}-[A-Z]{2,4})/.exec(voice)?.[1] ?? 'en-US';
  const clean = escapeXml(withoutXmlControls(text));
  const inner =
    speed !== undefined && speed !== 1
      ? `<prosody rate="${Math.round((speed - 1) * 100)}%">${clean}</prosody>`
      : clean;
  return `<speak version="1.0" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="${lang}"><voice name="${escapeXml(voice)}">${inner}</voice></speak>`;
}

export type AzureSpeechChannel = Pick<OpenAiChannel, 'type' | 'baseUrl' | 'key' | 'other' | 'headers'> & {
  /** The channel's parsed `plugin` JSON (for `voice.*`). */
  plugin?: unknown;
};

export interface AzureSpeechRequest {
  request: UpstreamRequest;
  /** The media type to answer the client with. */
  contentType: string;
  /** Exact: `inputTokens` = input characters. */
  usage: Usage;
}

function endpoint(channel: AzureSpeechChannel): URL {
  const region = channel.other.trim().toLowerCase();
  let base = channel.baseUrl.trim();
  if (!base) {
    if (!/^[a-z0-9]+$/.test(region))
      throw new ChannelConfigError('set the Azure Speech region (e.g. eastus) in the channel');
    base = `https://${region}.tts.speech.microsoft.com`;
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ChannelConfigError(`invalid base URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ChannelConfigError(`base URL must be http(s): ${base}`);
  return url;
}

/** Builds the synthesis request from an OpenAI speech body. */
export function buildAzureSpeechRequest(input: {
  channel: AzureSpeechChannel;
  body: JsonRecord;
}): AzureSpeechRequest {
  const { channel, body } = input;
  const text = asString(body.input);
  if (text === undefined || text === '') throw new TranslationError('input is required');
  const characters = [...text].length;
  if (characters > MAX_INPUT_CHARACTERS) {
    throw new TranslationError(
      `input must be at most ${MAX_INPUT_CHARACTERS} characters (got ${characters})`,
    );
  }
  const voice = resolveAzureVoice(asString(body.voice) ?? 'alloy', voiceMapFromPlugin(channel.plugin));
  const formatName = asString(body.response_format) ?? 'mp3';
  const format = FORMATS[formatName];
  if (!format) {
    throw new TranslationError(
      `response_format ${formatName} is not available on Azure Speech: use ${Object.keys(FORMATS).join(', ')}`,
    );
  }
  const speed = asNumber(body.speed);
  if (speed !== undefined && (speed < 0.25 || speed > 4))
    throw new TranslationError('speed must be between 0.25 and 4.0');
  const url = endpoint(channel);
  const prefix = url.pathname.replace(/\/+$/, '').replace(/\/cognitiveservices\/v1$/, '');
  const path = `${prefix}/cognitiveservices/v1`;
  const ssml = Buffer.from(buildSsml(text, voice, speed), 'utf8');
  const headers: Record<string, string> = {};
  for (const [rawName, v] of Object.entries(channel.headers ?? {})) {
    const name = rawName.toLowerCase();
    if (
      ![
        'host',
        'content-length',
        'content-type',
        'ocp-apim-subscription-key',
        'x-microsoft-outputformat',
      ].includes(name)
    )
      headers[name] = v;
  }
  Object.assign(headers, {
    'ocp-apim-subscription-key': channel.key,
    'content-type': 'application/ssml+xml',
    'x-microsoft-outputformat': format.azure,
    'user-agent': 'switchyard',
    'content-length': String(ssml.length),
  });
  return {
    request: upstreamRequest('POST', url.origin, path, headers, ssml, true, false),
    contentType: format.mime,
    usage: { ...emptyUsage(), inputTokens: characters },
  };
}
