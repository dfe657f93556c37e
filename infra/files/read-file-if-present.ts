import { readFile } from 'node:fs/promises';

/** A text file's contents, or undefined when there is no such file; any other failure is thrown. */
export async function readFileIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
