import t from 'tap';
import { BatchTooLarge, readAnswer, TransportFailure } from './json-rpc-transport.ts';

const redact = (text: string) => text.replaceAll('SECRET', '***');
const two = [{ id: 7 }, { id: 8 }];
const ok = (text: string) => ({ status: 200, statusText: 'OK', retryAfter: null, text });
const caught = (f: () => unknown): unknown => {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
};

t.test('responses by the index of the call they answer, ids echoed as strings too, missing ones absent', async (t) => {
  const answers = readAnswer(
    redact,
    [...two, { id: 9 }],
    ok(
      JSON.stringify([
        { id: '8', result: 'b' },
        { id: 7, result: 'a' },
      ]),
    ),
  );
  t.same(
    [...answers.entries()],
    [
      [0, { id: 7, result: 'a' }],
      [1, { id: '8', result: 'b' }],
    ],
  );
});

t.test('errors are redacted; a whole-request error applies to every call', async (t) => {
  const answers = readAnswer(redact, two, ok(JSON.stringify({ id: null, error: { code: -32000, message: 'bad key SECRET' } })));
  t.same(
    [...answers.values()].map((a) => a.error),
    [
      { code: -32000, message: 'bad key ***', data: undefined },
      { code: -32000, message: 'bad key ***', data: undefined },
    ],
  );
});

t.test('answers the client cannot use are TransportFailures: permanent or not, with Retry-After', async (t) => {
  const http = (status: number, text = '', retryAfter: string | null = null) =>
    caught(() => readAnswer(redact, two, { status, statusText: 'X', retryAfter, text })) as TransportFailure;
  t.match(http(401, 'no SECRET'), { message: 'HTTP 401 X: no ***', permanent: true, retryAfterMs: 0 });
  t.match(http(429, '', '3'), { message: 'HTTP 429 X', permanent: false, retryAfterMs: 3000 });
  t.match(http(503), { permanent: false });
  t.match(
    caught(() => readAnswer(redact, two, ok('<html>SECRET'))),
    { message: 'answered with something that is not JSON: <html>***' },
  );
  t.match(
    caught(() => readAnswer(redact, two, ok('[1]'))),
    { message: 'answered with a malformed JSON-RPC response' },
  );
  t.match(
    caught(() => readAnswer(redact, two, ok('{"id":null,"error":{"code":429,"message":"too many requests"}}'))),
    { message: 'rate limited: too many requests' },
  );
  t.type(http(500), TransportFailure);
});

t.test('the endpoint refusing the batch size is BatchTooLarge, for a batch only', async (t) => {
  t.type(
    caught(() => readAnswer(redact, two, { status: 413, statusText: '', retryAfter: null, text: '' })),
    BatchTooLarge,
  );
  t.type(
    caught(() => readAnswer(redact, two, ok('{"id":null,"error":{"code":-32600,"message":"batch too large"}}'))),
    BatchTooLarge,
  );
  t.type(
    caught(() => readAnswer(redact, [{ id: 1 }], { status: 413, statusText: '', retryAfter: null, text: '' })),
    TransportFailure,
  );
});
