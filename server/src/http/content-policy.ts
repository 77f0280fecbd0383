import { createHash } from 'node:crypto';

// The console's Content-Security-Policy. The page runs only the build's own files, the one inline
// script the server injects (its base path), and what the operator's AnalyticsCode snippet holds:
// each of its inline scripts by hash, each of its script sources by origin.

/** Cloudflare Turnstile: the sign-in form loads its script and frame from here when it is on. */
const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';

export interface SnippetParts {
  /** `'sha256-…'` of each inline script's exact text. */
  inlineHashes: string[];
  /** Origins of the snippet's `<script src>`. */
  scriptOrigins: string[];
  /** Origins of every http(s) URL in the snippet: where its scripts send their beacons. */
  urlOrigins: string[];
}

// A regular expression rather than an HTML parser: the browser hashes exactly the characters
// between `<script …>` and the first `</script`, which is what this match takes.
const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const SRC = /\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;
const URL_IN_TEXT = /https?:\/\/[^\s"'<>`)]+/gi;

export function scriptHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** What a snippet of HTML needs the policy to allow. */
export function snippetParts(snippet: string): SnippetParts {
  const inlineHashes = new Set<string>();
  const scriptOrigins = new Set<string>();
  for (const m of snippet.matchAll(SCRIPT)) {
    const src = SRC.exec(m[1] ?? '');
    if (src) {
      const origin = originOf(src[1] ?? src[2] ?? src[3] ?? '');
      if (origin) scriptOrigins.add(origin);
    } else if ((m[2] ?? '') !== '') {
      inlineHashes.add(scriptHash(m[2] ?? ''));
    }
  }
  const urlOrigins = new Set<string>();
  for (const m of snippet.matchAll(URL_IN_TEXT)) {
    const origin = originOf(m[0]);
    if (origin) urlOrigins.add(origin);
  }
  return { inlineHashes: [...inlineHashes], scriptOrigins: [...scriptOrigins], urlOrigins: [...urlOrigins] };
}

/** The policy of a console page whose inline scripts are `inlineScripts` plus the snippet's. */
export function consolePolicy(inlineScripts: string[], snippet: SnippetParts): string {
  const scripts = [
    "'self'",
    ...inlineScripts.map(scriptHash),
    ...snippet.inlineHashes,
    TURNSTILE_ORIGIN,
    ...snippet.scriptOrigins,
  ];
  const connect = ["'self'", ...new Set([...snippet.scriptOrigins, ...snippet.urlOrigins])];
  return [
    "default-src 'self'",
    `script-src ${[...new Set(scripts)].join(' ')}`,
    // MUI (emotion) writes its styles into <style> elements at run time.
    "style-src 'self' 'unsafe-inline'",
    // Logos, avatars and notice images may be anywhere on https.
    "img-src 'self' data: blob: https:",
    // Finished tasks' music and videos play from their provider's CDN.
    "media-src 'self' blob: https:",
    "font-src 'self' data:",
    `connect-src ${connect.join(' ')}`,
    // The about and home pages may be an https page shown in a frame; Turnstile is a frame too.
    'frame-src https:',
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    // Nobody else may frame the console (clickjacking).
    "frame-ancestors 'self'",
  ].join('; ');
}
