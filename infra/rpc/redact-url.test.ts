import t from 'tap';
import { redactUrl } from './redact-url.ts';

t.test('keeps what a user checks, masks what may be a key', async (t) => {
  t.equal(redactUrl('http://127.0.0.1:8545'), 'http://127.0.0.1:8545');
  t.equal(redactUrl('https://eth.llamarpc.com/'), 'https://eth.llamarpc.com/');
  t.equal(redactUrl('https://mainnet.infura.io/v3/9aa3d95b3bc440fa88ea12eaa4456161'), 'https://mainnet.infura.io/v3/9aa3***');
  t.equal(redactUrl('https://eth-mainnet.g.alchemy.com/v2/abcDEF123456ghiJKL789'), 'https://eth-mainnet.g.alchemy.com/v2/abcD***');
  t.equal(redactUrl('https://rpc.example/ethereum?apikey=s3cret&x=1'), 'https://rpc.example/ethereum?apikey=***&x=***');
  t.equal(redactUrl('https://user:hunter2@rpc.example/'), 'https://user:***@rpc.example/');
  t.equal(redactUrl('not a url'), 'not a url');
});
