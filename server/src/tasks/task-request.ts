// The task relays take JSON bodies as raw bytes (their scope parses nothing); this reads one.

/** A body the client got wrong: each family answers it as its own 400. */
export class TaskRequestError extends Error {}

/** The body as a JSON object; an empty body is an empty object. */
export function parseJsonBody(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : typeof raw === 'string' ? raw : undefined;
  if (text === undefined) throw new TaskRequestError('the body must be JSON');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TaskRequestError('the body is not valid JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new TaskRequestError('the body must be a JSON object');
  return value as Record<string, unknown>;
}
