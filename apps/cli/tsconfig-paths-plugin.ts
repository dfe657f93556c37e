import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Plugin } from 'rollup';
import { IdxError } from '../../domain/errors.ts';

interface PathRule {
  /** the pattern's text before and after its `*` (no `*`: an exact match, suffix undefined) */
  prefix: string;
  suffix?: string;
  targets: string[];
}

/**
 * `compilerOptions.paths` of the project's tsconfig.json (relative to `baseUrl`), as SubQuery's
 * build honours them, e.g. `"@/*": ["src/*"]`. `extends` is not followed.
 */
export function tsconfigPathsPlugin(root: string): Plugin | undefined {
  const file = join(root, 'tsconfig.json');
  if (!existsSync(file)) return undefined;
  let config: { compilerOptions?: { baseUrl?: unknown; paths?: unknown } };
  try {
    config = JSON.parse(stripJsonComments(readFileSync(file, 'utf8'))) as typeof config;
  } catch (err) {
    throw new IdxError('TSCONFIG_INVALID', `${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const paths = config?.compilerOptions?.paths;
  if (paths === null || typeof paths !== 'object') return undefined;
  const baseUrl = typeof config.compilerOptions?.baseUrl === 'string' ? config.compilerOptions.baseUrl : '.';
  const base = resolve(dirname(file), baseUrl);
  const rules: PathRule[] = Object.entries(paths as Record<string, unknown>)
    .filter((e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every((x) => typeof x === 'string'))
    .map(([pattern, targets]) => {
      const star = pattern.indexOf('*');
      return star < 0 ? { prefix: pattern, targets } : { prefix: pattern.slice(0, star), suffix: pattern.slice(star + 1), targets };
    })
    // TypeScript prefers the longest matching prefix
    .sort((a, b) => b.prefix.length - a.prefix.length);
  if (rules.length === 0) return undefined;

  return {
    name: 'idx-tsconfig-paths',
    async resolveId(source, importer, options) {
      if (importer === undefined || source.startsWith('.') || source.startsWith('/') || source.startsWith('\0')) return null;
      for (const rule of rules) {
        let matched: string | undefined;
        if (rule.suffix === undefined) {
          if (source === rule.prefix) matched = '';
        } else if (source.startsWith(rule.prefix) && source.endsWith(rule.suffix) && source.length >= rule.prefix.length + rule.suffix.length) {
          matched = source.slice(rule.prefix.length, source.length - rule.suffix.length);
        }
        if (matched === undefined) continue;
        for (const target of rule.targets) {
          const candidate = resolve(base, target.replace('*', matched));
          const resolved = await this.resolve(candidate, importer, { ...options, skipSelf: true });
          if (resolved !== null) return resolved;
        }
      }
      return null;
    },
  };
}

/**
 * tsconfig.json is JSON with comments and trailing commas. Written here because the few lines
 * it takes are less than a dependency: drops comments and trailing commas outside strings.
 */
export function stripJsonComments(text: string): string {
  let out = '';
  let pendingComma = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += pendingComma + text.slice(i, j + 1);
      pendingComma = '';
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      i--;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === ',') {
      out += pendingComma;
      pendingComma = ',';
    } else if (/\s/.test(c)) {
      if (pendingComma) pendingComma += c;
      else out += c;
    } else {
      // a comma directly before } or ] is a trailing comma
      out += (c === '}' || c === ']' ? pendingComma.slice(1) : pendingComma) + c;
      pendingComma = '';
    }
  }
  return out + pendingComma;
}
