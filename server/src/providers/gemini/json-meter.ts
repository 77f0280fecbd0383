import type { Usage } from '../../billing/pricing/usage.js';
import { asRecord, parseJson } from '../translate/json-reading.js';
import { geminiResponseText } from './stream-meter.js';
import { fromGeminiUsage } from './usage.js';

// Usage and text of a non-streaming generateContent reply. Replies that carry generated images
// can be large, but the usage sits beside the candidates, so the body is parsed once.

export function readGeminiJsonUsage(body: Buffer): Usage | null {
  return fromGeminiUsage(asRecord(parseJson(body.toString('utf8')))?.usageMetadata);
}

export function geminiJsonText(body: Buffer): string {
  const out: string[] = [];
  geminiResponseText(parseJson(body.toString('utf8')), out);
  return out.join('');
}
