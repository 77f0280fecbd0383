import type { FastifyRequest } from 'fastify';

// Cross-site request forgery on /api. The session cookie is SameSite=Lax, which still lets it
// through on a top-level GET from any site and on every request from another port of the same
// host (same-site). So a request that carries the session cookie must come from the console's own
// origin: browsers say so in Sec-Fetch-Site (and in Origin on writes). Requests that name an access
// token instead are scripts: a page on another origin cannot attach that header (no CORS on /api).

/** Why the browser's request is not from this origin, or undefined when it may proceed. */
export function crossSiteRefusal(req: FastifyRequest, opts: { write: boolean }): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') {
    // `none`: the user typed the address or followed a bookmark.
    if (site === 'same-origin' || site === 'none') return undefined;
    return `Refused a ${site} request: the console's API answers only its own origin`;
  }
  // A browser too old to send Sec-Fetch-Site still sends Origin on every write.
  const origin = req.headers.origin;
  if (!opts.write || origin === undefined) return undefined;
  if (origin !== 'null' && sameHost(origin, req.host)) return undefined;
  return `Refused a request from ${origin}: the console's API answers only its own origin`;
}

function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}
