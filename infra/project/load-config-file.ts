import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { IdxError, ValidationError, type Problem } from '../../domain/errors.ts';
import type { NodeConfigFile } from '../../domain/project/project-model.ts';
import { formatFieldPath, type FieldPath } from '../../domain/project/validate-manifest.ts';
import { parseJsonText, parseYamlText } from './parse-data-file.ts';

export const CONFIG_FILE_KEYS = ['idx', 'idxName', 'batchSize'] as const;
const CONFIG_EXTENSIONS = ['.yml', '.yaml', '.json'];

/**
 * Reads the node's `-c` config file (docs/usage.md "Config file"). `idx` is resolved against the config
 * file's own folder, so `idx: .` means the folder the file sits in.
 */
export function loadNodeConfigFile(path: string): NodeConfigFile {
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

  const problems: Problem[] = [];
  const report = (at: FieldPath, message: string) => {
    const pos = locate(at);
    problems.push({ path: at.length === 0 ? 'config' : formatFieldPath(at), message, ...(pos && { line: pos.line, column: pos.column }) });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report([], `expected an object with ${CONFIG_FILE_KEYS.join(', ')}`);
    throw new ValidationError(file, problems);
  }
  const rec = value as Record<string, unknown>;
  for (const key of Object.keys(rec)) {
    if (!(CONFIG_FILE_KEYS as readonly string[]).includes(key)) {
      report([key], `unknown key; the config file takes ${CONFIG_FILE_KEYS.join(', ')} (give other settings as flags)`);
    }
  }
  if (rec.idx === undefined || rec.idx === null) report(['idx'], 'required: the project folder ("." is the folder of this file)');
  else if (typeof rec.idx !== 'string' || rec.idx.trim() === '') report(['idx'], 'expected the project folder as a string ("." is the folder of this file)');
  if (rec.idxName !== undefined && (typeof rec.idxName !== 'string' || rec.idxName.trim() === '')) report(['idxName'], 'expected a non-empty string');
  if (rec.batchSize !== undefined && !(typeof rec.batchSize === 'number' && Number.isSafeInteger(rec.batchSize) && rec.batchSize > 0)) {
    report(['batchSize'], 'expected a positive integer');
  }
  if (problems.length > 0) throw new ValidationError(file, problems);

  const config: NodeConfigFile = { idx: resolve(dirname(file), rec.idx as string) };
  if (rec.idxName !== undefined) config.idxName = rec.idxName as string;
  if (rec.batchSize !== undefined) config.batchSize = rec.batchSize as number;
  return config;
}
