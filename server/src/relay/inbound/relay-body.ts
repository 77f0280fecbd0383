import { MAX_JSON_DEPTH, nestedTooDeep } from '../../http/json-depth.js';
import { relayErrors } from '../relay-error.js';

/** Parses the JSON body the client sent, keeping its bytes for pass-through. */
export function parseJsonBody(raw: unknown): { raw: Buffer; value: Record<string, unknown> } {
  if (!Buffer.isBuffer(raw) || raw.length === 0)
    throw relayErrors.badRequest('The request body must be a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw relayErrors.badRequest('The request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw relayErrors.badRequest('The request body must be a JSON object');
  }
  // Translators and meters walk the body recursively: a deep one is refused here, not by a RangeError.
  if (nestedTooDeep(value)) {
    throw relayErrors.badRequest(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return { raw, value: value as Record<string, unknown> };
}
