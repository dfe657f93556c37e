import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, envFor, openRunSchema } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject, rebuild } from './support/project-copies.ts';
import { atTransferStart, patchStarterMapping } from './support/starter-mapping.ts';
import { runNodeCli } from './support/watched-node.ts';

const { anvil, workload, built } = await setupErc20Chain(t, 10);
const kind = BACKENDS[BACKENDS.length - 1]!;

t.test('a bad manifest names the field', async (t) => {
  const dir = await copyProject(t, built);
  const manifest = join(dir, 'project.ts');
  await writeFile(
    manifest,
    (await readFile(manifest, 'utf8')).replace('handler: "handleTransfer"', 'handler: "handleTransfer", kind: "ethereum/NoSuchHandler" as never'),
  );
  const r = await runNodeCli(dir, {}, ['--network-endpoint', anvil.url]);
  t.equal(r.code, 1);
  t.match(r.output, /dataSources\[0\]\.mapping\.handlers\[0\]\.kind/);
});

t.test('an EVM project relabelled substrate/Runtime is read as a Substrate manifest: its EVM fields are named', async (t) => {
  const dir = await copyProject(t, built);
  const manifest = join(dir, 'project.ts');
  const source = await readFile(manifest, 'utf8');
  const patched = source.replace(/kind: EthereumDatasourceKind\.Runtime/g, 'kind: "substrate/Runtime" as never');
  t.not(patched, source, 'the manifest names its data source kind');
  await writeFile(manifest, patched);
  const r = await runNodeCli(dir, {}, ['--network-endpoint', anvil.url]);
  t.equal(r.code, 1);
  t.match(r.output, /network\.chainId: expected the chain's genesis hash/);
  t.match(r.output, /handlers\[0\]\.kind: expected one of substrate\/BlockHandler, substrate\/EventHandler, substrate\/CallHandler/);
});

t.test('a handler the mapping does not export: a warning at start, blocks indexed until one calls it, then a stop naming it', async (t) => {
  // as SubQuery's node: its public Multi-Chain/safe starter names a handler it does not export, and runs until a log reaches it
  const dir = await copyProject(t, built);
  const failAt = workload.fromBlock + 4;
  const manifest = join(dir, 'project.ts');
  const source = await readFile(manifest, 'utf8');
  const unexported =
    `dataSources: [\n    { kind: EthereumDatasourceKind.Runtime, startBlock: ${failAt}, ` +
    'mapping: { file: "./dist/index.js", handlers: [{ kind: EthereumHandlerKind.Block, handler: "handleTransfr" }] } },';
  const patched = source.replace('dataSources: [', unexported);
  t.not(patched, source, 'a data source with an unexported handler added');
  await writeFile(manifest, patched);
  const schema = uniqueSchemaName('idx_e2e');
  const r = await runNodeCli(dir, envFor(kind), ['--network-endpoint', anvil.url, '--batch-size', '2', '--db-schema', schema]);
  t.equal(r.code, 1);
  t.match(r.output, /WARN.*does not export handleTransfr \(did you mean "handleTransfer"\?\).*the first block that calls one will fail/);
  t.match(r.output, new RegExp(`HANDLER_NOT_FOUND|Handler handleTransfr at block ${failAt}`));
  t.match(r.output, /exports no function named "handleTransfr"/);
  const { lastProcessedHeight } = await openRunSchema(t, kind, dir, schema);
  t.equal(lastProcessedHeight, failAt - 1, 'every block before the one that calls it was indexed and saved');
});

t.test('a bad schema names the file, line and column', async (t) => {
  const dir = await copyProject(t, built);
  await writeFile(join(dir, 'schema.graphql'), 'type Transfer @entity {\n  id: ID!\n  value: Money!\n}\n');
  const r = await runNodeCli(dir, {}, ['--network-endpoint', anvil.url]);
  t.equal(r.code, 1);
  t.match(r.output, /schema\.graphql:3:10: Transfer\.value: unknown type "Money"/);
});

t.test('an unreachable endpoint is named', async (t) => {
  const dir = await copyProject(t, built);
  const r = await runNodeCli(dir, {}, ['--network-endpoint', 'http://127.0.0.1:1']);
  t.equal(r.code, 1);
  t.match(r.output, /cannot reach the chain/);
  t.match(r.output, /127\.0\.0\.1:1/);
});

t.test('a throwing handler stops with its name, the block and the source line; earlier blocks stay', async (t) => {
  const dir = await copyProject(t, built);
  const failAt = workload.fromBlock + 3;
  await patchStarterMapping(dir, (source) => {
    const patched = atTransferStart(source, `if (log.blockNumber === ${failAt}) throw new Error("cannot index block ${failAt}");`);
    t.not(patched, source, 'the mapping was patched');
    return patched;
  });
  await rebuild(dir);
  const schema = uniqueSchemaName('idx_e2e');
  const r = await runNodeCli(dir, envFor(kind), ['--network-endpoint', anvil.url, '--batch-size', '2', '--db-schema', schema]);
  t.equal(r.code, 1);
  t.match(r.output, /handleTransfer/);
  t.match(r.output, new RegExp(`block ${failAt}|${failAt}`));
  t.match(r.output, /cannot index block/);
  t.match(r.output, /src\/mappings\/erc20\.ts:\d+/);
  const { lastProcessedHeight } = await openRunSchema(t, kind, dir, schema);
  t.equal(lastProcessedHeight, failAt - 1, 'every block before the failing one was saved');
});

t.test('a schema.graphql change that needs a reindex is refused without --allow-schema-migration, naming it and the ways out', async (t) => {
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_e2e');
  const env = envFor(kind);
  const args = ['--network-endpoint', anvil.url, '--db-schema', schema];
  const first = await runNodeCli(dir, env, args, { until: workload.toBlock });
  t.equal(first.code, 0);
  const file = join(dir, 'schema.graphql');
  await writeFile(file, (await readFile(file, 'utf8')).replace('transactionHash: String!', 'transactionHash: String!\n  memo: String!'));
  const second = await runNodeCli(dir, env, args);
  t.equal(second.code, 1);
  t.match(second.output, /schema\.graphql changed since schema "idx_e2e_\w+" was indexed \(to block \d+\); these changes need a reindex/);
  t.match(second.output, /Transfer: added field memo: String!: a required field: the rows already indexed have no value for it/);
  t.match(second.output, /--allow-schema-migration/);
  t.match(second.output, /--db-schema <name>/);
  t.match(second.output, /force-clean/);
  const { lastProcessedHeight } = await openRunSchema(t, kind, dir, schema);
  t.equal(lastProcessedHeight, workload.toBlock, 'the data indexed before is untouched');
});
