/**
 * The Node modules a mapping may `require` in the sandbox (as SubQuery's sandbox allows), also
 * under `node:` and their subpaths (`assert/strict`, `path/posix`, `stream/promises`, `util/types`).
 * One list for `idx build` (what stays external), the sandbox (what `require` answers) and tests.
 */
export const SANDBOX_MODULES: readonly string[] = ['assert', 'buffer', 'crypto', 'events', 'path', 'stream', 'url', 'util'];

/** `assert, buffer, … and util`, for messages. */
export const SANDBOX_MODULES_TEXT = `${SANDBOX_MODULES.slice(0, -1).join(', ')} and ${SANDBOX_MODULES.at(-1)}`;
