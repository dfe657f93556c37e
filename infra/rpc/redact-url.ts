/**
 * An endpoint URL as it may appear in logs and error messages: provider URLs often carry an API
 * key in the path or query (`/v3/<key>`, `?apikey=`), so long path segments, query values and a
 * password are masked. Host and port stay, since those are what a user needs to check.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password) parsed.password = '***';
  parsed.pathname = parsed.pathname
    .split('/')
    .map((seg) => (seg.length >= 16 && /[0-9]/.test(seg) ? `${seg.slice(0, 4)}***` : seg))
    .join('/');
  for (const key of [...parsed.searchParams.keys()]) parsed.searchParams.set(key, '***');
  // URL.toString() decodes nothing and re-encodes "*" fine; strip the trailing slash it adds to bare origins
  const text = parsed.toString();
  return parsed.pathname === '/' && !url.endsWith('/') && !parsed.search ? text.slice(0, -1) : text;
}
