import t from 'tap';
import { DEFAULT_LIMITS, createLogBudget } from './limits.ts';
import { createSandboxLogger } from './sandbox-logger.ts';
import { createSandboxRequire, sandboxBuiltins } from './sandbox-modules.ts';

const sink = () => {
  const lines: [string, string, unknown][] = [];
  return { lines, bridge: { log: (level: string, message: string, fields: unknown) => void lines.push([level, message, fields]) } };
};

t.test('lines below the level are never sent; fields and errors become plain fields', async (t) => {
  const { lines, bridge } = sink();
  const { logger, console } = createSandboxLogger(
    bridge,
    DEFAULT_LIMITS,
    () => 'send',
    'info',
    () => 7,
  );
  logger.debug!('hidden');
  logger.info!({ amount: 10n, when: new Map([[1, 2]]) }, 'sent %d', 3);
  console.error(new TypeError('bad'));
  t.same(lines[0], ['info', 'sent 3', { amount: '10', when: 'Map(1) { 1 => 2 }' }]);
  t.match(lines[1], ['error', 'bad', { err: { name: 'TypeError', message: 'bad', stack: /^TypeError: bad\n/ } }]);
  t.equal(lines.length, 2);
  t.equal(logger.child!(), logger as never, 'child() logs as the logger');
});

t.test("past the block's budget, one note and then nothing", async (t) => {
  const { lines, bridge } = sink();
  // a line costs at least 64 characters: the first fits, the second does not
  const limits = { ...DEFAULT_LIMITS, logBlockChars: 100 };
  const budget = createLogBudget(limits);
  const { logger } = createSandboxLogger(
    bridge,
    limits,
    (chars) => budget.admit(chars),
    undefined,
    () => 42,
  );
  for (let i = 0; i < 3; i++) logger.info!('0123456789');
  t.same(
    lines.map(([level, message]) => [level, message]),
    [
      ['info', '0123456789'],
      ['warn', 'the mapping logged more than 100 bytes of text at block 42: its further log lines in this block are dropped'],
    ],
  );
});

t.test('require: the builtins, with or without node:, and nothing else', async (t) => {
  const require = createSandboxRequire(sandboxBuiltins('crypto!', 'url!'));
  t.equal(require('node:crypto'), 'crypto!');
  t.equal(require('url'), 'url!');
  t.equal(typeof (require('path') as { join: unknown }).join, 'function');
  t.throws(() => require('fs'), { name: 'ModuleNotAllowedError', message: /^Cannot require "fs" in a mapping: the sandbox only provides / });
  t.throws(() => require('toString'), { name: 'ModuleNotAllowedError' }, "Object.prototype's names are not modules");
});
