import { isDeepEqual } from './deep-equal.ts';
import { util } from './util.ts';

/**
 * Node's `assert` for mappings. The npm `assert` package is not installed, so this is written
 * out: the same functions, `AssertionError` with `actual`/`expected`/`operator`/`code`, and
 * `assert.strict`.
 */

export class AssertionError extends Error {
  readonly code = 'ERR_ASSERTION';
  readonly actual: unknown;
  readonly expected: unknown;
  readonly operator: string;
  readonly generatedMessage: boolean;

  constructor(options: { message?: string | Error; actual?: unknown; expected?: unknown; operator?: string }) {
    const generated = options.message === undefined;
    super(
      generated
        ? `${util.inspect(options.actual)} ${options.operator ?? '=='} ${util.inspect(options.expected)}`
        : options.message instanceof Error
          ? options.message.message
          : String(options.message),
    );
    this.name = 'AssertionError';
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = options.operator ?? 'fail';
    this.generatedMessage = generated;
  }
}

type Message = string | Error | undefined;

function fail(actual: unknown, expected: unknown, message: Message, operator: string, defaultMessage?: string): never {
  if (message instanceof Error) throw message;
  throw new AssertionError({ message: message ?? defaultMessage, actual, expected, operator });
}

function ok(value: unknown, message?: Message): asserts value {
  if (!value) fail(value, true, message, '==', 'The expression evaluated to a falsy value');
}

function matches(err: unknown, expected: unknown): boolean {
  if (expected === undefined) return true;
  if (expected instanceof RegExp) return expected.test(String((err as Error)?.message ?? err));
  if (typeof expected === 'function') {
    if ((expected as { prototype?: unknown }).prototype !== undefined && err instanceof (expected as new () => unknown)) return true;
    if (Error.isPrototypeOf(expected)) return false;
    return (expected as (e: unknown) => unknown)(err) === true;
  }
  if (typeof expected === 'object' && expected !== null) {
    return Object.keys(expected).every((k) => {
      const want = (expected as Record<string, unknown>)[k];
      const got = (err as Record<string, unknown>)?.[k];
      return want instanceof RegExp && typeof got === 'string' ? want.test(got) : isDeepEqual(got, want, true);
    });
  }
  return false;
}

function throws(fn: () => unknown, expected?: unknown, message?: Message): void {
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  try {
    fn();
  } catch (err) {
    if (!matches(err, expected)) throw err;
    return;
  }
  fail(undefined, expected, message, 'throws', 'Missing expected exception.');
}

async function rejects(promiseOrFn: Promise<unknown> | (() => Promise<unknown>), expected?: unknown, message?: Message): Promise<void> {
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  try {
    await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
  } catch (err) {
    if (!matches(err, expected)) throw err;
    return;
  }
  fail(undefined, expected, message, 'rejects', 'Missing expected rejection.');
}

function doesNotThrow(fn: () => unknown, message?: Message): void {
  try {
    fn();
  } catch (err) {
    fail(err, undefined, message, 'doesNotThrow', `Got unwanted exception.\nActual message: "${(err as Error)?.message ?? err}"`);
  }
}

async function doesNotReject(promiseOrFn: Promise<unknown> | (() => Promise<unknown>), message?: Message): Promise<void> {
  try {
    await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
  } catch (err) {
    fail(err, undefined, message, 'doesNotReject', `Got unwanted rejection.\nActual message: "${(err as Error)?.message ?? err}"`);
  }
}

function build(strict: boolean) {
  const equal = (a: unknown, b: unknown, m?: Message) => {
    if (!(strict ? Object.is(a, b) : a == b || (Number.isNaN(a) && Number.isNaN(b)))) fail(a, b, m, strict ? 'strictEqual' : '==');
  };
  const notEqual = (a: unknown, b: unknown, m?: Message) => {
    if (strict ? Object.is(a, b) : a == b) fail(a, b, m, strict ? 'notStrictEqual' : '!=');
  };
  const deepEqual = (a: unknown, b: unknown, m?: Message) => {
    if (!isDeepEqual(a, b, strict))
      fail(
        a,
        b,
        m,
        strict ? 'deepStrictEqual' : 'deepEqual',
        `Expected values to be ${strict ? 'strictly' : 'loosely'} deep-equal:\n${util.inspect(a)}\n\nshould equal\n\n${util.inspect(b)}`,
      );
  };
  const notDeepEqual = (a: unknown, b: unknown, m?: Message) => {
    if (isDeepEqual(a, b, strict)) fail(a, b, m, strict ? 'notDeepStrictEqual' : 'notDeepEqual');
  };
  const strictEqual = (a: unknown, b: unknown, m?: Message) => {
    if (!Object.is(a, b)) fail(a, b, m, 'strictEqual', `Expected values to be strictly equal:\n\n${util.inspect(a)} !== ${util.inspect(b)}`);
  };
  const notStrictEqual = (a: unknown, b: unknown, m?: Message) => {
    if (Object.is(a, b)) fail(a, b, m, 'notStrictEqual', `Expected "actual" to be strictly unequal to: ${util.inspect(b)}`);
  };
  const deepStrictEqual = (a: unknown, b: unknown, m?: Message) => {
    if (!isDeepEqual(a, b, true))
      fail(a, b, m, 'deepStrictEqual', `Expected values to be strictly deep-equal:\n${util.inspect(a)}\n\nshould equal\n\n${util.inspect(b)}`);
  };
  const notDeepStrictEqual = (a: unknown, b: unknown, m?: Message) => {
    if (isDeepEqual(a, b, true)) fail(a, b, m, 'notDeepStrictEqual');
  };
  const assert = (value: unknown, message?: Message): void => ok(value, message);
  return Object.assign(assert, {
    ok,
    equal,
    notEqual,
    deepEqual,
    notDeepEqual,
    strictEqual,
    notStrictEqual,
    deepStrictEqual,
    notDeepStrictEqual,
    throws,
    rejects,
    doesNotThrow,
    doesNotReject,
    fail: (message?: Message): never => fail(undefined, undefined, message, 'fail', 'Failed'),
    match: (s: string, re: RegExp, m?: Message) => {
      if (!re.test(s)) fail(s, re, m, 'match', `The input did not match the regular expression ${re}. Input: ${util.inspect(s)}`);
    },
    doesNotMatch: (s: string, re: RegExp, m?: Message) => {
      if (re.test(s)) fail(s, re, m, 'doesNotMatch', `The input was expected to not match the regular expression ${re}. Input: ${util.inspect(s)}`);
    },
    ifError: (value: unknown) => {
      if (value !== null && value !== undefined) throw value;
    },
    AssertionError,
  });
}

const strict = build(true);
export const assert = Object.assign(build(false), { strict });
Object.assign(strict, { strict });
