import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../apps/cli/main.ts';
import type { Teardown } from './teardown.ts';

/** `idx <args>` in this process, with what it printed; `cwd` is made the current folder meanwhile. */
export async function idxCli(args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (d) => out.push(String(d)));
  stderr.on('data', (d) => err.push(String(d)));
  const before = process.cwd();
  if (cwd !== undefined) process.chdir(cwd);
  try {
    const code = await runCli(args, { stdout, stderr });
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.chdir(before);
  }
}

/** A temp folder holding `files` (path → text), removed on teardown. */
export async function projectFolder(t: Teardown, files: Record<string, string>, prefix = 'idx-project-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(resolve(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}
