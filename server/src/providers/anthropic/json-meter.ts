import type { Usage } from '../../billing/pricing/usage.js';
import { asArray, asRecord, isRecord, parseJson } from '../translate/json-reading.js';
import { anthropicEventText } from './stream-meter.js';
import { fromAnthropicUsage } from './usage.js';

// Usage and text of a non-streaming Messages reply. These replies are small next to OpenAI's
// (no base64 images come back), so the body is simply parsed.

/** The reply's usage, or null when the body is not a Message or carries no counts. */
export function readAnthropicJsonUsage(body: Buffer): Usage | null {
  return fromAnthropicUsage(asRecord(parseJson(body.toString('utf8')))?.usage);
}

/** The generated text of a reply (text, thinking, tool names and inputs), for local counting. */
export function anthropicJsonText(body: Buffer): string {
  const message = asRecord(parseJson(body.toString('utf8')));
  const out: string[] = [];
  for (const block of asArray(message?.content)) {
    if (!isRecord(block)) continue;
    anthropicEventText({ content_block: block }, out);
    if (block.type === 'tool_use' && block.input !== undefined) out.push(JSON.stringify(block.input));
  }
  return out.join('');
}
