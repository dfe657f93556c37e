/**
 * Endpoint URLs as they may be printed (logs, errors, /meta): providers put the API key in the
 * userinfo (`https://user:key@host`), the query (`?apikey=`) or the path (Infura `/v3/<32 hex>`,
 * Alchemy `/v2/<key>`, QuickNode `/<40 hex>/`, Ankr `/eth/<64 hex>`, Blast `/<uuid>`). The rule
 * (docs/usage.md "Endpoint URLs in logs"): scheme, host and port stay, as they are what a user
 * checks; the userinfo, every query value, the fragment, a path segment that looks like a key
 * (16 or more characters of hex, base64url or a UUID with a digit or mixed case in it), and any
 * segment after `v2`, `v3`, `key`, `apikey`, `api-key`, `api_key` or `token` become `***`.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // not a URL we can read: at least the userinfo goes
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/i, '$1***@');
  }
  const userinfo = parsed.username !== '' || parsed.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url) ? '***@' : '';
  const segments = parsed.pathname.split('/');
  const path = segments.map((seg, i) => (isKeySegment(segments, i) ? MASK : seg)).join('/');
  const query =
    parsed.search === ''
      ? ''
      : `?${parsed.search
          .slice(1)
          .split('&')
          .map((item) => {
            const eq = item.indexOf('=');
            return eq < 0 ? (item === '' ? '' : MASK) : `${item.slice(0, eq)}=${MASK}`;
          })
          .join('&')}`;
  const hash = parsed.hash === '' ? '' : `#${MASK}`;
  // an opaque URL (mailto:, a scheme without "//") has no host to keep
  if (parsed.host === '' && !url.includes('//')) return `${parsed.protocol}${MASK}`;
  // a bare origin is printed as given, without the "/" URL adds
  const shownPath = path === '/' && !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\//i.test(url) ? '' : path;
  return `${parsed.protocol}//${userinfo}${parsed.host}${shownPath}${query}${hash}`;
}

/**
 * `text` with every URL in it redacted as {@link redactUrl} does (`file:` URLs, which name local
 * paths, excepted): for messages that may quote an endpoint (fetch errors do, whole), and for the
 * logger, which passes every line through it.
 */
export function redactUrlsIn(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (match) => {
    if (/^file:/i.test(match)) return match;
    // sentence punctuation after a URL is not part of it
    const trail = /[).,;:!?\]}]+$/.exec(match)?.[0] ?? '';
    const url = match.slice(0, match.length - trail.length);
    return `${redactUrl(url)}${trail}`;
  });
}

const MASK = '***';
const KEY_PREFIXES = new Set(['v2', 'v3', 'key', 'apikey', 'api-key', 'api_key', 'token']);
/** a scheme, "://", and everything up to a space, quote, bracket or backslash (which JSON escapes use) */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>\\\u001b]+/gi;

/** The segments of a URL's path that {@link redactUrl} masks. */
export function keySegments(pathname: string): string[] {
  const segments = pathname.split('/');
  return segments.filter((_, i) => isKeySegment(segments, i));
}

function isKeySegment(segments: readonly string[], i: number): boolean {
  const seg = segments[i]!;
  return seg !== '' && (looksLikeKey(seg) || (i > 0 && KEY_PREFIXES.has(segments[i - 1]!.toLowerCase())));
}

/** A path segment that is probably a key: long, of a token's alphabet, and not a plain word. */
function looksLikeKey(seg: string): boolean {
  if (seg === MASK) return true;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(seg)) return true;
  if (seg.length < 16 || !/^[A-Za-z0-9_\-.~%+=]+$/.test(seg)) return false;
  return /[0-9]/.test(seg) || (/[a-z]/.test(seg) && /[A-Z]/.test(seg));
}
