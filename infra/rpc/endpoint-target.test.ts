import t from 'tap';
import { endpointTarget } from './endpoint-target.ts';

const KEY = '9aa3d95b3bc440fa88ea12eaa4456161';

t.test('the userinfo leaves the URL for a basic auth header; an own Authorization header wins', async (t) => {
  const plain = endpointTarget('http://127.0.0.1:8545');
  t.same([plain.url, plain.headers, plain.label], ['http://127.0.0.1:8545', {}, 'http://127.0.0.1:8545']);

  const basic = endpointTarget(`https://us%20er:p%40ss@h:1/v3/${KEY}`, { 'x-api-key': 'hdr-key' });
  t.equal(basic.url, `https://h:1/v3/${KEY}`);
  t.same(basic.headers, { 'x-api-key': 'hdr-key', authorization: `Basic ${Buffer.from('us er:p@ss').toString('base64')}` });
  t.equal(basic.label, 'https://***@h:1/v3/***');

  const own = endpointTarget('https://user:pw@h/', { Authorization: 'Bearer tok-123456' });
  t.same(own.headers, { Authorization: 'Bearer tok-123456' });
  t.equal(own.url, 'https://h/');
});

t.test("redact masks the endpoint's URL in any form and its secrets, not ordinary words", async (t) => {
  const target = endpointTarget(`https://indexer-7:hunter2@h:1/v3/${KEY}?apikey=k-s3cret`, { 'x-token': 'Bearer tok-123456' });
  t.equal(
    target.redact(`token tok-123456 refused for https://h:1/v3/${KEY}?apikey=k-s3cret (indexer-7 hunter2, key ${KEY}, apikey k-s3cret)`),
    'token *** refused for https://***@h:1/v3/***?apikey=*** (*** ***, key ***, apikey ***)',
  );
  t.equal(target.redact('hunter22 is another word'), 'hunter22 is another word', 'a secret inside a longer word is left');
});
