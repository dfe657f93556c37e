import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { evaluateBundle } from '../../test/support/evaluate-bundle.ts';
import { buildProject } from './build-project.ts';
import { stripJsonComments } from './tsconfig-paths-plugin.ts';

t.test('stripJsonComments: comments and trailing commas go, strings stay', async (t) => {
  const text = '{\n  // a comment\n  "a": "http://x/*y*/", /* block */ "b": [1, 2,],\n  "c": {"d": "e\\"//",},\n}\n';
  t.same(JSON.parse(stripJsonComments(text)), { a: 'http://x/*y*/', b: [1, 2], c: { d: 'e"//' } });
});

t.test('idx build follows compilerOptions.paths of tsconfig.json', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-paths-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'tsconfig.json':
      '{\n  "compilerOptions": {\n    // SubQuery projects sometimes alias their folders\n    "baseUrl": ".",\n    "paths": { "@lib/*": ["src/lib/*"], "config": ["./src/config.ts"], },\n  },\n}\n',
    'src/index.ts': 'import { twice } from "@lib/math";\nimport { factor } from "config";\nexport const handle = (): number => twice(factor);\n',
    'src/lib/math.ts': 'export const twice = (n: number): number => n * 2;\n',
    'src/config.ts': 'export const factor = 21;\n',
    // idx build needs a manifest; this one names no handler
    'project.yaml':
      'specVersion: 1.0.0\nname: paths\nschema: { file: ./schema.graphql }\nnetwork: { chainId: "1", endpoint: http://127.0.0.1:8545 }\ndataSources: []\n',
    'schema.graphql': 'type Thing @entity {\n  id: ID!\n}\n',
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(resolve(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await buildProject({ location: dir, reporter: { info: () => undefined, warn: () => undefined } });
  const exports = evaluateBundle(await readFile(join(dir, 'dist', 'index.js'), 'utf8'), {});
  t.equal((exports.handle as () => number)(), 42);
});
