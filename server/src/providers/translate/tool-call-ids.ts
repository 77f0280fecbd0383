import { createHash } from 'node:crypto';

/**
 * A tool-call id for a protocol that has none (Gemini function calls): derived from a seed and the
 * call's position, so the same reply always yields the same ids and a client replaying its history
 * sends back ids that still pair calls with results.
 */
export function stableToolCallId(seed: string, index: number): string {
  const digest = createHash('sha256').update(`${seed}\u0000${index}`).digest('base64url');
  return `call_${digest.slice(0, 24)}`;
}
