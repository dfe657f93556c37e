import { chmod, rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes a file whole or not at all: the text goes to a temporary file beside it, which is then
 * renamed over it, so a reader polling for the file never sees half of it (`JSON.parse` of a file
 * caught mid-write fails). `mode` is set on the temporary file before the rename, whatever the umask.
 */
export async function writeWholeFile(file: string, text: string, options: { mode?: number } = {}): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await rm(tmp, { force: true });
  await writeFile(tmp, text, { mode: options.mode ?? 0o644, flag: 'wx' });
  if (options.mode !== undefined) await chmod(tmp, options.mode);
  await rename(tmp, file);
}
