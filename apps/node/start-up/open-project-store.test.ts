import t from 'tap';
import { IdxError } from '../../../domain/errors.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';
import type { NodeOptions } from './node-options.ts';
import { projectSchemaName } from './open-project-store.ts';

const project = (root: string) => ({ root }) as LoadedProject;
const options = (o: Partial<NodeOptions>) => o as NodeOptions;

t.test('the schema name: --db-schema, else --idx-name, else the folder, and never longer than PostgreSQL keeps', async (t) => {
  t.equal(projectSchemaName(options({}), project('/p/my-project')), 'my-project');
  t.equal(projectSchemaName(options({ idxName: 'named' }), project('/p/x')), 'named');
  t.equal(projectSchemaName(options({ dbSchema: 's'.repeat(63), idxName: 'named' }), project('/p/x')), 's'.repeat(63));
  const refused = (o: Partial<NodeOptions>, root: string) => {
    try {
      projectSchemaName(options(o), project(root));
    } catch (err) {
      return err as IdxError;
    }
    throw new Error('not refused');
  };
  const long = refused({ dbSchema: 's'.repeat(64) }, '/p/x');
  t.equal(long.code, 'BAD_ARGUMENT');
  t.match(long.message, /the database schema name "s{20}…" has 64 bytes; PostgreSQL names have at most 63 \(from --db-schema\); give a shorter --db-schema/);
  t.match(refused({ idxName: 'é'.repeat(32) }, '/p/x').message, /has 64 bytes.*\(from --idx-name\)/);
  t.match(refused({}, `/p/${'f'.repeat(100)}`).message, /\(from the name of the project folder \/p\/f+\)/);
});
