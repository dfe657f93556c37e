import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { IdxError, ValidationError } from '../../domain/errors.ts';
import { formatFieldPath } from '../../domain/project/validate-manifest.ts';
import { parseJsonText, parseYamlText } from './parse-data-file.ts';

const CONFIG_EXTENSIONS = ['.yml', '.yaml', '.json'];

/** One `key: value` of a config file, with where it was written. */
export interface ConfigEntry {
  key: string;
  value: unknown;
  line?: number;
  column?: number;
}

/** A `-c` config file read: its keys in the order written; what they mean is the program's to say. */
export interface ConfigFile {
  /** the file's absolute path */
  file: string;
  /** its folder: relative paths in it are relative to this */
  dir: string;
  entries: ConfigEntry[];
}

/**
 * Reads a `-c` config file (docs/usage.md "Config file"): a `.yml`, `.yaml` or `.json` file holding
 * one object. Refuses another format, an unreadable file, bad syntax (with line and column) and a
 * file that is not an object of settings.
 */
export function loadConfigFile(path: string): ConfigFile {
  const file = resolve(path);
  const ext = extname(file).toLowerCase();
  if (!CONFIG_EXTENSIONS.includes(ext)) {
    throw new IdxError(
      'CONFIG_UNSUPPORTED_FORMAT',
      `config file ${file}: expected a .yml, .yaml or .json file, got ${ext === '' ? 'no extension' : `"${ext}"`}`,
    );
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new IdxError('CONFIG_NOT_FOUND', `config file ${file} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  const { value, locate } = ext === '.json' ? parseJsonText(text, file) : parseYamlText(text, file);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const pos = locate([]);
    throw new ValidationError(file, [
      { path: 'config', message: 'expected an object of settings (idx: ., batchSize: 50, …)', ...(pos && { line: pos.line, column: pos.column }) },
    ]);
  }
  const entries = Object.entries(value as Record<string, unknown>).map(([key, v]): ConfigEntry => {
    const pos = locate([key]);
    return { key, value: v, ...(pos && { line: pos.line, column: pos.column }) };
  });
  return { file, dir: dirname(file), entries };
}

/** `key` as a problem's path (quoted when it is not an identifier). */
export const configKeyPath = (key: string): string => formatFieldPath([key]);
