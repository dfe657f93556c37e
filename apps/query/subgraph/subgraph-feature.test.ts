import t from 'tap';
import { createLogger } from '../../../infra/logging/create-logger.ts';
import { queryFeatures } from '../query-features.ts';
import { parseQueryArgs, type QueryOptions } from '../query-options.ts';
import { runQuery } from '../run-query.ts';

const ctx = { version: '1.2.3', cwd: '/home/me/my-project', write: () => {} };
const parse = (args: string[]): QueryOptions => {
  const cmd = parseQueryArgs(args, ctx);
  if (cmd.command !== 'run') throw new Error('expected run');
  return cmd.options;
};

t.test('--subgraph: off by default, a boolean flag, listed in --help', async (t) => {
  t.equal(parse([]).subgraph, false);
  t.equal(parse(['--subgraph']).subgraph, true);
  t.equal(parse(['--subgraph=false']).subgraph, false);
  t.throws(() => parse(['--subgraph=maybe']), { code: 'BAD_ARGUMENT', message: /--subgraph/ });
  let out = '';
  parseQueryArgs(['--help'], { ...ctx, write: (s) => void (out += s) });
  t.match(out, /--subgraph \[bool\]\s+also serve The Graph's query dialect/);
});

t.test('the feature comes with the others, and the flag is refused where no feature provides it', async (t) => {
  t.ok(
    queryFeatures(parse(['--subgraph'])).some((f) => f.flag === '--subgraph' && f.name === 'subgraph'),
    'queryFeatures provides --subgraph',
  );
  const logger = createLogger({ level: 'silent', format: 'json' });
  await t.rejects(runQuery({ options: parse(['--subgraph']), logger, version: 't', env: {}, features: [] }), {
    code: 'OPTION_NOT_AVAILABLE',
    message: /--subgraph: not available/,
  });
});
