import t from 'tap';
import type { ProjectManifest } from '../../../domain/project/project-model.ts';
import { parseNodeArgs, type NodeOptions } from './node-options.ts';
import { withRunnerOptions } from './runner-options.ts';

const parse = (argv: string[]): NodeOptions => {
  const r = parseNodeArgs(['-f', 'proj', ...argv], { program: 'idx-node', version: 'test', variant: 'base', cores: 2, write: () => {} });
  if (r.command === 'exit') throw new Error('unexpected exit');
  return r.options;
};
const manifest = (options: Record<string, boolean>) =>
  ({ runner: { node: { name: '@subql/node-ethereum', version: '*', options }, query: { name: '@subql/query', version: '*' } } }) as unknown as ProjectManifest;

t.test('the command line records which runner flags it gave', async (t) => {
  t.same(parse([]).givenFlags, []);
  t.same(parse(['--unsafe', '--disable-historical']).givenFlags, ['disableHistorical', 'unsafe']);
  t.same(parse(['--unfinalized-blocks=false']).givenFlags, ['unfinalizedBlocks']);
});

t.test("runner.node.options set the flags the command line did not give, as SubQuery's node does", async (t) => {
  const { options, applied } = withRunnerOptions(parse([]), manifest({ historical: false, unsafe: true }), 'project.yaml');
  t.equal(options.disableHistorical, true, 'historical: false acts as --disable-historical');
  t.equal(options.unsafe, true);
  t.equal(options.unfinalizedBlocks, false, 'not named: the default');
  t.same(applied, ['historical: false', 'unsafe: true']);

  const none = parse([]);
  t.equal(withRunnerOptions(none, manifest({}), 'project.yaml').options, none, 'nothing to apply: the same options');
});

t.test('a flag on the command line wins over the manifest', async (t) => {
  const { options, applied } = withRunnerOptions(
    parse(['--unsafe=false', '--unfinalized-blocks']),
    manifest({ unsafe: true, unfinalizedBlocks: false }),
    'project.yaml',
  );
  t.equal(options.unsafe, false);
  t.equal(options.unfinalizedBlocks, true);
  t.same(applied, []);
});

t.test('combinations that cannot work are refused, naming where each came from', async (t) => {
  t.throws(() => withRunnerOptions(parse([]), manifest({ historical: false, unfinalizedBlocks: true }), 'project.yaml'), {
    code: 'HISTORICAL_REQUIRED',
    message:
      /^indexing unfinalized blocks \(to roll forks back\) needs historical tracking, which runner\.node\.options\.historical: false in project\.yaml turns off/,
  });
  t.throws(() => withRunnerOptions(parse(['--unfinalized-blocks']), manifest({ historical: false }), 'project.yaml'), { code: 'HISTORICAL_REQUIRED' });
  t.throws(() => withRunnerOptions(parse([]), manifest({ historical: false }), 'project.yaml', 'reindex'), {
    code: 'HISTORICAL_REQUIRED',
    message: /^reindex needs historical tracking/,
  });
  t.doesNotThrow(() => withRunnerOptions(parse(['--disable-historical=false']), manifest({ historical: false, unfinalizedBlocks: true }), 'project.yaml'));
});
