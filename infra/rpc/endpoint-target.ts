import { keySegments, redactUrl, redactUrlsIn } from './redact-url.ts';

/** How one endpoint is asked, and how it is named where it is printed. */
export interface EndpointTarget {
  /** the URL requests go to: the given one without its userinfo (fetch refuses URLs with credentials) */
  url: string;
  /** the endpoint's own headers, with `Authorization: Basic …` when the URL carried a user or password */
  headers: Record<string, string>;
  /** the URL safe to print (redactUrl) */
  label: string;
  /** `text` with this endpoint's URL and secrets (userinfo, query values, key-like path segments, header values) masked */
  redact(text: string): string;
}

/**
 * `http://user:pass@host/` is sent as HTTP basic auth (user and password URL-decoded, as browsers
 * and curl do): SubQuery users write endpoints so. A header the endpoint gives itself
 * (`authorization` in the manifest's `headers`) wins over the URL's userinfo.
 */
export function endpointTarget(url: string, headers: Readonly<Record<string, string>> = {}): EndpointTarget {
  const label = redactUrl(url);
  const out: Record<string, string> = { ...headers };
  let requestUrl = url;
  // a header's value, and what follows its scheme word (`Bearer <token>`): the word itself is no secret
  const secrets: string[] = Object.values(headers).flatMap((v) => [v, ...v.trim().split(/\s+/).slice(1)]);
  let urlForms: string[] = [];
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined) {
    const forms = [url, parsed.href];
    if (parsed.username !== '' || parsed.password !== '') {
      const user = decode(parsed.username);
      const password = decode(parsed.password);
      const basic = Buffer.from(`${user}:${password}`).toString('base64');
      if (!Object.keys(out).some((k) => k.toLowerCase() === 'authorization')) out.authorization = `Basic ${basic}`;
      secrets.push(parsed.username, parsed.password, user, password, basic);
      parsed.username = '';
      parsed.password = '';
      // as given but for the userinfo (URL.href would add a "/" to a bare origin)
      requestUrl = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');
      forms.push(requestUrl, parsed.href);
    }
    for (const [, value] of parsed.searchParams) secrets.push(value);
    for (const item of parsed.search.slice(1).split('&')) secrets.push(item.slice(item.indexOf('=') + 1));
    secrets.push(parsed.hash.slice(1));
    for (const seg of keySegments(parsed.pathname)) secrets.push(seg, decode(seg));
    urlForms = [...new Set(forms)].sort((a, b) => b.length - a.length);
  }
  // longest first, so that a secret containing another is masked whole; short values would mask ordinary words
  const bare = [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  const patterns = bare.map((s) => new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(s)}(?![A-Za-z0-9])`, 'g'));
  return {
    url: requestUrl,
    headers: out,
    label,
    redact(text) {
      let s = text;
      for (const form of urlForms) s = s.split(form).join(label);
      s = redactUrlsIn(s);
      for (const p of patterns) s = s.replace(p, '***');
      return s;
    },
  };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
