import t from 'tap';
import { redactUrl, redactUrlsIn } from './redact-url.ts';

t.test('keeps what a user checks, masks what may be a key', async (t) => {
  t.equal(redactUrl('http://127.0.0.1:8545'), 'http://127.0.0.1:8545');
  t.equal(redactUrl('https://eth.llamarpc.com/'), 'https://eth.llamarpc.com/');
  t.equal(redactUrl('ws://127.0.0.1:9944/public-ws'), 'ws://127.0.0.1:9944/public-ws');
  t.equal(redactUrl('https://api.example/graphql/dictionary-v2'), 'https://api.example/graphql/dictionary-v2');
  t.equal(redactUrl('not a url'), 'not a url');
});

t.test("each provider's key form is masked whole, scheme, host and port kept", async (t) => {
  const cases: [string, string][] = [
    ['https://mainnet.infura.io/v3/9aa3d95b3bc440fa88ea12eaa4456161', 'https://mainnet.infura.io/v3/***'],
    ['https://eth-mainnet.g.alchemy.com/v2/abcDEF123456ghiJKL789', 'https://eth-mainnet.g.alchemy.com/v2/***'],
    ['https://eth-mainnet.g.alchemy.com/v2/demo', 'https://eth-mainnet.g.alchemy.com/v2/***'],
    ['https://old-cool-sky.quiknode.pro/2f5c1b6a0d8e4f3a9b7c6d5e4f3a2b1c0d9e8f7a/', 'https://old-cool-sky.quiknode.pro/***/'],
    ['https://rpc.ankr.com/eth/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'https://rpc.ankr.com/eth/***'],
    ['wss://moonbeam.api.onfinality.io/ws?apikey=0f3c6a2e-1111-2222-3333-444455556666', 'wss://moonbeam.api.onfinality.io/ws?apikey=***'],
    ['https://eth-mainnet.blastapi.io/0f3c6a2e-1111-2222-3333-444455556666', 'https://eth-mainnet.blastapi.io/***'],
    ['https://rpc.example/ethereum?apikey=s3cret&x=1', 'https://rpc.example/ethereum?apikey=***&x=***'],
    ['https://rpc.example/?s3cretToken', 'https://rpc.example/?***'],
    ['https://user:hunter2@rpc.example/', 'https://***@rpc.example/'],
    ['https://apiKeyAsUser@rpc.example:8443', 'https://***@rpc.example:8443'],
    ['https://rpc.example/rpc#s3cret', 'https://rpc.example/rpc#***'],
    ['postgres://idx:pa55word@db:5432/idx', 'postgres://***@db:5432/idx'],
  ];
  for (const [url, shown] of cases) t.equal(redactUrl(url), shown, url);
});

t.test('redacting twice changes nothing more', async (t) => {
  for (const url of ['https://u:p@h:1/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=k#f', 'http://127.0.0.1:8545', 'https://rpc.example/eth/x']) {
    const once = redactUrl(url);
    t.equal(redactUrl(once), once, url);
  }
});

t.test('every URL in a text, as fetch errors quote them', async (t) => {
  const text =
    'checking the chain failed (https://user:hunter2@127.0.0.1:1/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=s3cret: Request cannot be constructed from a URL that includes credentials: https://user:hunter2@127.0.0.1:1/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=s3cret).';
  const shown = redactUrlsIn(text);
  t.equal(
    shown,
    'checking the chain failed (https://***@127.0.0.1:1/v3/***?apikey=***: Request cannot be constructed from a URL that includes credentials: https://***@127.0.0.1:1/v3/***?apikey=***).',
  );
  t.equal(redactUrlsIn('{"message":"from wss://a:b@h/ws?k=v"}'), '{"message":"from wss://***@h/ws?k=***"}', 'inside a JSON line');
  t.equal(redactUrlsIn('file:///tmp/project-0123456789abcdef/project.ts'), 'file:///tmp/project-0123456789abcdef/project.ts', 'local paths stay');
  t.equal(redactUrlsIn('no url here'), 'no url here');
});
