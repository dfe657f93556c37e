import { Buffer, SlowBuffer, kMaxLength } from 'buffer';
import { SANDBOX_MODULES_TEXT } from '../../../domain/mapping/sandbox-modules.ts';
import { assert } from './builtins/assert.ts';
import { events } from './builtins/events.ts';
import { path } from './builtins/path.ts';
import { stream, streamPromises } from './builtins/stream.ts';
import { util } from './builtins/util.ts';

/** The Node modules a mapping may require in the sandbox (domain/mapping/sandbox-modules.ts names them), with its own crypto and url. */
export function sandboxBuiltins(crypto: unknown, url: unknown): Record<string, unknown> {
  const buffer = { Buffer, SlowBuffer, kMaxLength, INSPECT_MAX_BYTES: 50 };
  return {
    assert,
    'assert/strict': assert.strict,
    buffer,
    crypto,
    events,
    path,
    'path/posix': path,
    stream,
    'stream/promises': streamPromises,
    url,
    util,
    'util/types': util.types,
  };
}

/** `require` over `builtins` (with or without `node:`); any other module is refused, saying what the sandbox provides. */
export function createSandboxRequire(builtins: Readonly<Record<string, unknown>>): (name: string) => unknown {
  return (name: string): unknown => {
    if (typeof name !== 'string') throw new TypeError('require: the module name must be a string');
    const bare = name.startsWith('node:') ? name.slice(5) : name;
    if (Object.prototype.hasOwnProperty.call(builtins, bare)) return builtins[bare];
    const err = new Error(
      `Cannot require "${name}" in a mapping: the sandbox only provides ${SANDBOX_MODULES_TEXT}. ` +
        'Bundle pure-JavaScript dependencies into dist/index.js (idx build does), or run the node with --unsafe to allow any module (results may then differ between runs).',
    );
    err.name = 'ModuleNotAllowedError';
    throw err;
  };
}
