import { resolve } from 'node:path';
import { CommanderError, type Command, type Option } from 'commander';
import { didYouMean } from '../../../domain/closest-name.ts';
import { ValidationError, type Problem } from '../../../domain/errors.ts';
import { configKeyPath, type ConfigEntry, type ConfigFile } from '../../../infra/project/load-config-file.ts';

/** Settings naming files or folders: relative to the config file's folder, as `idx` is. */
const PATH_KEYS = new Set(['idx', 'csvOutDir', 'pgCa', 'pgCert', 'pgKey']);
/** Flags a config file cannot hold: itself, and what only answers and exits. */
const NOT_IN_FILE = new Set(['config', 'help', 'version']);

/** The settings a `-c` file gives, by option name (`batchSize`), parsed and checked as the flags are. */
export interface ConfigFileOptions {
  values: Record<string, unknown>;
}

/**
 * The `-c` file's settings (docs/usage.md "Config file"): every flag of the node, written as
 * camelCase (`batchSize`, as SubQuery's config files do) or kebab-case (`batch-size`). Each value
 * goes through the flag's own parser, so a file is checked exactly as the command line is; problems
 * name the key, its line and column. `command()` makes a fresh command with the node's options.
 */
export function configFileOptions(config: ConfigFile, command: () => Command): ConfigFileOptions {
  const options = command().options.filter((o) => o.long !== undefined && !NOT_IN_FILE.has(o.attributeName()));
  const byKey = new Map<string, Option>();
  for (const o of options) {
    byKey.set(o.attributeName(), o);
    byKey.set(o.long!.slice(2), o);
  }
  const problems: Problem[] = [];
  const report = (entry: ConfigEntry, message: string) =>
    problems.push({ path: configKeyPath(entry.key), message, ...(entry.line !== undefined && { line: entry.line, column: entry.column }) });
  const values: Record<string, unknown> = {};
  const seen = new Map<string, string>();

  for (const entry of config.entries) {
    const option = byKey.get(entry.key);
    if (option === undefined) {
      const names = options.map((o) => o.attributeName());
      report(
        entry,
        `unknown setting${didYouMean(entry.key, names, 2)}; the config file takes the node's flags as camelCase or kebab-case keys ` +
          `(batchSize or batch-size for --batch-size; idx-node --help lists them)`,
      );
      continue;
    }
    const name = option.attributeName();
    if (seen.has(name)) {
      report(entry, `sets ${option.long} a second time (also as ${seen.get(name)})`);
      continue;
    }
    seen.set(name, entry.key);
    const args = argsFor(option, entry, config.dir);
    if (typeof args === 'string') {
      report(entry, args);
      continue;
    }
    try {
      const cmd = command();
      cmd.parse(args, { from: 'user' });
      values[name] = cmd.opts()[name];
    } catch (err) {
      if (!(err instanceof CommanderError)) throw err;
      // commander names the flag; the user wrote the key
      report(
        entry,
        err.message
          .replace(/^error: /, '')
          .replace(/^option '[^']*' argument '[^']*' is invalid\. /, '')
          .replace(/\.$/, ''),
      );
    }
  }
  if (values.idx === undefined && !problems.some((p) => p.path === 'idx')) {
    problems.unshift({ path: 'idx', message: 'required: the project folder ("." is the folder of this file)' });
  }
  if (problems.length > 0) throw new ValidationError(config.file, problems);
  return { values };
}

/** The command-line arguments that give `entry`'s value to `option`, or what is wrong with the value. */
function argsFor(option: Option, entry: ConfigEntry, dir: string): string[] | string {
  const flag = option.long!;
  const name = option.attributeName();
  const { value } = entry;
  const isBoolean = option.flags.endsWith('[bool]');
  const repeatable = name === 'networkEndpoint';
  if (value === null || value === undefined) return 'expected a value';
  // --network-endpoint-config: an object (or its JSON text) per endpoint, by position
  if (name === 'networkEndpointConfig') {
    const items = Array.isArray(value) ? value : [value];
    return items.flatMap((v) => [flag, typeof v === 'string' ? v : JSON.stringify(v)]);
  }
  if (Array.isArray(value)) {
    if (!repeatable) return `expected one value, not a list (only networkEndpoint takes a list)`;
    if (value.length === 0) return 'expected at least one endpoint';
    if (!value.every((v) => typeof v === 'string')) return 'expected a list of endpoint URLs';
    return value.flatMap((v) => [flag, v as string]);
  }
  if (typeof value === 'object') return 'expected a value, not an object';
  if (isBoolean) {
    if (typeof value !== 'boolean') return `expected true or false, got ${JSON.stringify(value)}`;
    return [`${flag}=${value}`];
  }
  // `debug: true` stands for `--debug` alone (every scope)
  if (value === true && option.optional) return [flag];
  if (typeof value === 'boolean') return `expected a value for ${flag}, got ${value}`;
  if (typeof value === 'string' && value.trim() === '') return 'expected a non-empty value';
  if (name === 'idx' && typeof value !== 'string') return 'expected the project folder as a string ("." is the folder of this file)';
  const text = String(value);
  return [flag, PATH_KEYS.has(name) ? resolve(dir, text) : text];
}
