import type { SourceMap } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface MappedStack {
  /** the stack with frames in the bundle rewritten to the project's own sources */
  stack: string;
  /** `file:line:column` of the innermost frame in the project's code, when there is one */
  location?: string;
}

/**
 * Rewrites `at fn (…/dist/index.js:L:C)` frames through the bundle's source map, so an error
 * points at the mapping's TypeScript line rather than into the bundle. Frames elsewhere (the
 * sandbox prelude) are dropped: they mean nothing to the project's author.
 */
export function mapStack(stack: string, fileName: string, sourceMap: SourceMap | undefined): MappedStack {
  const lines = stack.split('\n');
  const out: string[] = [];
  let location: string | undefined;
  const base = dirname(fileName);
  for (const line of lines) {
    if (!/^\s+at\s/.test(line)) {
      out.push(line);
      continue;
    }
    const at = line.lastIndexOf(`${fileName}:`);
    if (at < 0) continue;
    const m = /^:(\d+):(\d+)/.exec(line.slice(at + fileName.length));
    if (m === null) continue;
    let file = fileName;
    let lineNo = Number(m[1]);
    let column = Number(m[2]);
    const entry = sourceMap?.findEntry(lineNo - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
    if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
      file = sourcePath(entry.originalSource, base);
      lineNo = entry.originalLine + 1;
      column = (entry.originalColumn ?? 0) + 1;
    }
    const where = `${file}:${lineNo}:${column}`;
    location ??= where;
    const head = line.slice(0, at);
    const tail = line.slice(at + fileName.length + m[0].length);
    out.push(`${head}${where}${tail}`);
  }
  return { stack: out.join('\n'), location };
}

function sourcePath(source: string, base: string): string {
  if (source.startsWith('file://')) return fileURLToPath(source);
  if (/^[a-z][a-z0-9+.-]*:/i.test(source) || isAbsolute(source)) return source;
  return resolve(base, source);
}
