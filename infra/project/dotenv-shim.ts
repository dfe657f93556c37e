import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type Env = Record<string, string | undefined>;

/** Reads `KEY=VALUE` lines: `#` comments, `export ` prefixes and single, double or back quotes. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(rawLine);
    if (m === null) continue;
    let value = m[2]!.trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'" || quote === '`') && value.lastIndexOf(quote) > 0) {
      value = value.slice(1, value.lastIndexOf(quote));
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\r/g, '\r');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[m[1]!] = value;
  }
  return out;
}

/**
 * The part of `dotenv` that SubQuery's project.ts templates use: `config({ path })` loads a file's
 * variables into `env` without overwriting ones already set (unless `override`). Like dotenv, a
 * missing file is reported in the result, not thrown. Without a path it reads `.env` in `baseDir`.
 */
export function createDotenvShim(env: Env, baseDir: string) {
  const config = (options: { path?: string | string[] | URL; override?: boolean; processEnv?: Env; encoding?: BufferEncoding } = {}) => {
    const paths = Array.isArray(options.path) ? options.path : [options.path ?? resolve(baseDir, '.env')];
    const target = options.processEnv ?? env;
    const parsed: Record<string, string> = {};
    let error: Error | undefined;
    for (const p of paths) {
      try {
        Object.assign(parsed, parseEnvFile(readFileSync(p instanceof URL ? p : resolve(baseDir, p), options.encoding ?? 'utf8')));
      } catch (err) {
        error = err as Error;
      }
    }
    for (const [key, value] of Object.entries(parsed)) {
      if (options.override || target[key] === undefined) target[key] = value;
    }
    return error === undefined ? { parsed } : { parsed, error };
  };
  return { config, parse: (src: string | Buffer) => parseEnvFile(String(src)) };
}
