import nodeAssert from 'node:assert';
import nodePath from 'node:path';
import nodeUtil from 'node:util';
import t from 'tap';
import { assert } from './assert.ts';
import { path } from './path.ts';
import { util } from './util.ts';

// The sandbox's own assert/util/path against Node's, on the calls mappings make.

t.test('path matches node:path (posix)', async (t) => {
  const cases: [keyof typeof nodePath.posix & keyof typeof path, ...string[]][] = [
    ['join', '/a/b', '../c', './d.ts'],
    ['join', 'a', '', '..', '..', 'b'],
    ['join'],
    ['normalize', '/a//b/../c/.'],
    ['normalize', './x/'],
    ['normalize', '../../a'],
    ['resolve', 'a', '../b'],
    ['resolve', '/x', 'y', '/z', 'w/'],
    ['relative', '/a/b/c', '/a/d'],
    ['relative', '/a', '/a/b/c'],
    ['dirname', '/a/b/c.ts'],
    ['dirname', 'c.ts'],
    ['dirname', '/'],
    ['basename', '/a/b/c.test.ts'],
    ['basename', '/a/b/c.ts', '.ts'],
    ['basename', '/a/b/'],
    ['extname', 'x/y.test.ts'],
    ['extname', '.hidden'],
    ['extname', 'noext'],
    ['isAbsolute', '/x'],
    ['isAbsolute', 'x'],
  ];
  for (const [fn, ...args] of cases) {
    const ours = (path[fn] as (...a: string[]) => unknown)(...args);
    const node = (nodePath.posix[fn] as (...a: string[]) => unknown)(...(fn === 'resolve' ? ['/', ...args] : args));
    t.same(ours, node, `${fn}(${args.map((a) => JSON.stringify(a)).join(', ')})`);
  }
  t.same(path.parse('/home/u/file.txt'), nodePath.posix.parse('/home/u/file.txt'));
  t.equal(path.format({ dir: '/a', name: 'b', ext: '.c' }), nodePath.posix.format({ dir: '/a', name: 'b', ext: '.c' }));
  t.equal(path.sep, '/');
  t.equal(path.posix, path);
});

t.test('util.format and inspect print what Node prints for common values', async (t) => {
  const cases: unknown[][] = [
    ['%s is %d years', 'Bob', 42],
    ['%s', 5n],
    ['%i', '42.9'],
    ['%j', { a: [1, 'x'] }],
    ['100%% sure', 1],
    ['extra', 'args', 3, true],
    [{ a: 1, b: 'two', c: [1, 2] }],
    ['x', null, undefined],
  ];
  for (const args of cases)
    t.equal(
      util.format(...args),
      nodeUtil.format(...args),
      JSON.stringify(args, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
    );
  t.equal(util.inspect({ a: { b: { c: { d: 1 } } } }), nodeUtil.inspect({ a: { b: { c: { d: 1 } } } }));
  t.equal(util.inspect(new Map([[1, 'a']])), nodeUtil.inspect(new Map([[1, 'a']])));
  t.ok(util.isDeepStrictEqual({ a: [1n] }, { a: [1n] }));
  t.notOk(util.isDeepStrictEqual({ a: 1 }, { a: '1' }));
  t.equal(await util.promisify((x: number, cb: (e: null, v: number) => void) => cb(null, x * 2))(21), 42);
  function A() {}
  function B() {}
  util.inherits(A as never, B as never);
  t.ok(Object.create(A.prototype) instanceof B);
});

t.test('assert throws AssertionError as Node does', async (t) => {
  const both = (fn: (a: typeof nodeAssert) => void) => {
    let ours: unknown;
    let theirs: unknown;
    try {
      fn(assert as unknown as typeof nodeAssert);
    } catch (e) {
      ours = e;
    }
    try {
      fn(nodeAssert);
    } catch (e) {
      theirs = e;
    }
    return [ours, theirs] as [(Error & { code?: string }) | undefined, (Error & { code?: string }) | undefined];
  };
  for (const [name, fn] of Object.entries({
    ok: (a: typeof nodeAssert) => a.ok(0, 'zero'),
    equal: (a: typeof nodeAssert) => a.equal(1, '1'),
    notEqualFails: (a: typeof nodeAssert) => a.notEqual(1, '1'),
    strictEqual: (a: typeof nodeAssert) => a.strictEqual(1, '1' as unknown as number),
    deepStrictEqual: (a: typeof nodeAssert) => a.deepStrictEqual({ a: [1, { b: 2n }] }, { a: [1, { b: 2n }] }),
    deepStrictEqualFails: (a: typeof nodeAssert) => a.deepStrictEqual({ a: 1 }, { a: '1' }),
    deepEqualLoose: (a: typeof nodeAssert) => a.deepEqual({ a: 1 }, { a: '1' }),
    throws: (a: typeof nodeAssert) =>
      a.throws(() => {
        throw new TypeError('bad');
      }, TypeError),
    throwsMissing: (a: typeof nodeAssert) => a.throws(() => {}),
    match: (a: typeof nodeAssert) => a.match('abc', /x/),
    fail: (a: typeof nodeAssert) => a.fail('boom'),
    strict: (a: typeof nodeAssert) => a.strict.equal(1, '1' as unknown as number),
  })) {
    const [ours, theirs] = both(fn);
    t.equal(ours === undefined, theirs === undefined, `${name} throws when Node's does`);
    if (ours && theirs) {
      t.equal(ours.name, theirs.name, `${name}: name`);
      t.equal(ours.code, theirs.code, `${name}: code`);
    }
  }
  t.equal(
    (() => {
      try {
        assert.equal(1, 2, 'custom');
      } catch (e) {
        return (e as Error).message;
      }
    })(),
    'custom',
  );
  await t.rejects(assert.rejects(Promise.resolve(1)), { name: 'AssertionError' });
});
