import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BIN, programEnv } from './idx-programs.ts';
import { uniqueSchemaName } from './test-backends.ts';

export interface IdxNodeTestRun {
  code: number;
  output: string;
  /** the messages of the JSON log lines, in order */
  lines: string[];
}

/**
 * `idx-node test -f <project> --network-endpoint <endpoint> [args]`, logging JSON, as a user runs it.
 * On PostgreSQL each run gets a schema of its own unless the test names one: test files run side by
 * side, and two runs on one project's `test-<schema>` are refused as two writers.
 */
export async function runIdxNodeTest(project: string, endpoint: string, env: Record<string, string | undefined>, ...args: string[]): Promise<IdxNodeTestRun> {
  const schema = env.DB_HOST !== undefined && !args.includes('--db-schema') ? ['--db-schema', uniqueSchemaName('idx_nodetest')] : [];
  let code = 0;
  let output = '';
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--no-node-snapshot', BIN('idx-node'), 'test', '-f', project, '--network-endpoint', endpoint, '--output-fmt', 'json', ...schema, ...args],
      { env: programEnv(env), maxBuffer: 1 << 24 },
    );
    output = stdout + stderr;
  } catch (err) {
    const e = err as { code: number | null; signal: string | null; stdout: string; stderr: string };
    // killed by a signal: its name, so that a crash at exit reads as one
    [code, output] = [e.code ?? -1, `${e.stdout}${e.stderr}${e.signal === null ? '' : `\n(killed by ${e.signal})`}`];
  }
  return { code, output, lines: logMessages(output) };
}

/** The messages of a program's JSON log lines. */
export const logMessages = (output: string): string[] =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { message: string }).message);
