// Headers on every answer Fastify gives (the console, /api, the relay's non-hot routes). Written
// here rather than through @fastify/helmet: the console's policy depends on an option
// (http/content-policy.ts) and HSTS on the request's own protocol, neither of which its static
// configuration expresses, and the rest is four constant headers.

const ALWAYS: [string, string][] = [
  ['x-content-type-options', 'nosniff'],
  // Reset links and OAuth codes in the console's URLs never leave in a Referer.
  ['referrer-policy', 'same-origin'],
  // For browsers that predate CSP frame-ancestors.
  ['x-frame-options', 'SAMEORIGIN'],
];
const WITH_HSTS: [string, string][] = [...ALWAYS, ['strict-transport-security', 'max-age=31536000']];

/**
 * `protocol` is the request's as Fastify sees it: X-Forwarded-Proto counts only from a trusted
 * proxy (TRUSTED_PROXIES), so plain-http deployments never pin browsers to https.
 */
export function securityHeaders(protocol: string): [string, string][] {
  return protocol === 'https' ? WITH_HSTS : ALWAYS;
}
