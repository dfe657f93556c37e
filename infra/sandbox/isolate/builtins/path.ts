/**
 * Node's `path` (POSIX flavour) for mappings: `path-browserify` is not installed, so this is the
 * same algorithm written out. The working directory is `/` because a sandbox has no file system.
 */

function normalizeString(path: string, allowAboveRoot: boolean): string {
  let res = '';
  let lastSegmentLength = 0;
  let lastSlash = -1;
  let dots = 0;
  let code = 0;
  for (let i = 0; i <= path.length; ++i) {
    if (i < path.length) code = path.charCodeAt(i);
    else if (code === 47) break;
    else code = 47;
    if (code === 47) {
      if (lastSlash === i - 1 || dots === 1) {
        // empty segment or "."
      } else if (dots === 2) {
        if (res.length < 2 || lastSegmentLength !== 2 || !res.endsWith('..')) {
          if (res.length > 2) {
            const lastSlashIndex = res.lastIndexOf('/');
            if (lastSlashIndex === -1) {
              res = '';
              lastSegmentLength = 0;
            } else {
              res = res.slice(0, lastSlashIndex);
              lastSegmentLength = res.length - 1 - res.lastIndexOf('/');
            }
            lastSlash = i;
            dots = 0;
            continue;
          } else if (res.length !== 0) {
            res = '';
            lastSegmentLength = 0;
            lastSlash = i;
            dots = 0;
            continue;
          }
        }
        if (allowAboveRoot) {
          res += res.length > 0 ? '/..' : '..';
          lastSegmentLength = 2;
        }
      } else {
        if (res.length > 0) res += `/${path.slice(lastSlash + 1, i)}`;
        else res = path.slice(lastSlash + 1, i);
        lastSegmentLength = i - lastSlash - 1;
      }
      lastSlash = i;
      dots = 0;
    } else if (code === 46 && dots !== -1) {
      ++dots;
    } else {
      dots = -1;
    }
  }
  return res;
}

function assertPath(path: unknown, name = 'path'): asserts path is string {
  if (typeof path !== 'string') throw new TypeError(`The "${name}" argument must be of type string. Received ${typeof path}`);
}

function resolve(...args: string[]): string {
  let resolved = '';
  let absolute = false;
  for (let i = args.length - 1; i >= -1 && !absolute; i--) {
    const path = i >= 0 ? args[i]! : '/';
    assertPath(path, `paths[${i}]`);
    if (path.length === 0) continue;
    resolved = `${path}/${resolved}`;
    absolute = path.charCodeAt(0) === 47;
  }
  resolved = normalizeString(resolved, !absolute);
  if (absolute) return `/${resolved}`;
  return resolved.length > 0 ? resolved : '.';
}

function normalize(path: string): string {
  assertPath(path);
  if (path.length === 0) return '.';
  const absolute = path.charCodeAt(0) === 47;
  const trailing = path.charCodeAt(path.length - 1) === 47;
  let p = normalizeString(path, !absolute);
  if (p.length === 0) {
    if (absolute) return '/';
    return trailing ? './' : '.';
  }
  if (trailing) p += '/';
  return absolute ? `/${p}` : p;
}

function isAbsolute(path: string): boolean {
  assertPath(path);
  return path.length > 0 && path.charCodeAt(0) === 47;
}

function join(...args: string[]): string {
  if (args.length === 0) return '.';
  let joined: string | undefined;
  for (const arg of args) {
    assertPath(arg);
    if (arg.length > 0) joined = joined === undefined ? arg : `${joined}/${arg}`;
  }
  return joined === undefined ? '.' : normalize(joined);
}

function relative(from: string, to: string): string {
  assertPath(from, 'from');
  assertPath(to, 'to');
  if (from === to) return '';
  const f = resolve(from).split('/').filter(Boolean);
  const t = resolve(to).split('/').filter(Boolean);
  let i = 0;
  while (i < f.length && i < t.length && f[i] === t[i]) i++;
  return [...f.slice(i).map(() => '..'), ...t.slice(i)].join('/');
}

function dirname(path: string): string {
  assertPath(path);
  if (path.length === 0) return '.';
  const hasRoot = path.charCodeAt(0) === 47;
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 1; --i) {
    if (path.charCodeAt(i) === 47) {
      if (!matchedSlash) {
        end = i;
        break;
      }
    } else {
      matchedSlash = false;
    }
  }
  if (end === -1) return hasRoot ? '/' : '.';
  if (hasRoot && end === 1) return '//';
  return path.slice(0, end);
}

function basename(path: string, ext?: string): string {
  assertPath(path);
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  const trimmed = path.slice(0, end);
  let base = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  if (ext !== undefined && ext !== base && base.endsWith(ext)) base = base.slice(0, base.length - ext.length);
  return base;
}

function extname(path: string): string {
  const base = basename(path);
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || (base === '..' && dot === 1)) return '';
  return base.slice(dot);
}

interface ParsedPath {
  root: string;
  dir: string;
  base: string;
  ext: string;
  name: string;
}

function parse(path: string): ParsedPath {
  assertPath(path);
  const root = path.charCodeAt(0) === 47 ? '/' : '';
  if (path.length === 0) return { root, dir: '', base: '', ext: '', name: '' };
  const base = basename(path);
  const ext = extname(path);
  let dir = dirname(path);
  if (dir === '.' && !path.includes('/')) dir = '';
  return { root, dir, base, ext, name: ext ? base.slice(0, base.length - ext.length) : base };
}

function format(p: Partial<ParsedPath>): string {
  const dir = p.dir || p.root;
  const base = p.base || `${p.name ?? ''}${p.ext ? (p.ext.startsWith('.') ? p.ext : `.${p.ext}`) : ''}`;
  if (!dir) return base;
  return dir === p.root ? `${dir}${base}` : `${dir}/${base}`;
}

function toNamespacedPath(path: string): string {
  return path;
}

export const path = {
  sep: '/',
  delimiter: ':',
  resolve,
  normalize,
  isAbsolute,
  join,
  relative,
  dirname,
  basename,
  extname,
  parse,
  format,
  toNamespacedPath,
  posix: undefined as unknown,
};
path.posix = path;
