import t from 'tap';
import { deadPort, startLocalServer } from '../../test/support/local-rpc-server.ts';
import { createDictionaryClient } from '../chains/ethereum/create-dictionary-client.ts';
import { resolveDictionaries } from './resolve-dictionaries.ts';

const KEY = '0123456789abcdef0123456789abcdef';
const SECRETS = ['hunter2', KEY, 'k-s3cret'];
const withSecrets = (base: string) => `${base.replace('http://', 'http://reader:hunter2@')}/${KEY}/graphql?apikey=k-s3cret`;

t.test("a dictionary URL's user and password go as basic auth; its messages name it redacted", async (t) => {
  const server = await startLocalServer(t, () => ({ json: { data: { _metadata: { lastProcessedHeight: 7, genesisHash: '0xab', chain: '1' } } } }));
  const client = createDictionaryClient({ url: withSecrets(server.url), timeoutSeconds: 5 });
  t.match(await client.metadata(), { lastProcessedHeight: 7 });
  t.equal(server.headers[0]!.authorization, `Basic ${Buffer.from('reader:hunter2').toString('base64')}`);
  t.equal(server.paths[0], `/${KEY}/graphql?apikey=k-s3cret`);
  t.equal(client.name, `${server.url.replace('http://', 'http://***@')}/***/graphql?apikey=***`);

  const echoing = await startLocalServer(t, () => ({ status: 403, text: `<html>key ${KEY} refused</html>` }));
  const refused = `http://127.0.0.1:${await deadPort()}`;
  for (const url of [withSecrets(echoing.url), withSecrets(refused)]) {
    const err = (await createDictionaryClient({ url, timeoutSeconds: 5 })
      .metadata()
      .catch((e: unknown) => e)) as Error;
    t.equal((err as { code?: string }).code, 'DICTIONARY_FAILED');
    const text = `${err.message}\n${err.stack}\n${JSON.stringify(err)}`;
    t.same(
      SECRETS.filter((s) => text.includes(s)),
      [],
      `no secret in ${err.message}`,
    );
  }

  const resolver = await startLocalServer(t, () => ({ json: ['http://d.example/'] }));
  t.same(await resolveDictionaries(withSecrets(resolver.url), { chainId: '1', genesisHash: '0xab' }, 5), ['http://d.example/']);
  t.equal(resolver.headers[0]!.authorization, `Basic ${Buffer.from('reader:hunter2').toString('base64')}`, 'the resolver too');
  const down = await resolveDictionaries(withSecrets(refused), { chainId: '1', genesisHash: '0xab' }, 5).catch((e: unknown) => e as Error);
  t.same(
    SECRETS.filter((s) => `${(down as Error).message}${(down as Error).stack}`.includes(s)),
    [],
    `no secret in ${(down as Error).message}`,
  );
});
