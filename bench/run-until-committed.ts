import type { ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';

export interface IndexerRun {
  /** the last block it committed (its `_metadata.lastProcessedHeight`), null when none */
  indexedTo: number | null;
  /** why it stopped before `toBlock`: its error log lines, or how it ended */
  error?: string;
  seconds: number;
}

/**
 * Watches an indexer (idx-node or SubQuery's node, logging JSON lines) writing into `schema` until it
 * has committed `toBlock` (read from its `_metadata` table), stops on its own, or `timeoutMs` passes;
 * then stops it. Returns how far it got and, when it stopped short, the error lines it logged.
 */
export async function runUntilCommitted(
  child: ChildProcessByStdio<null, Readable, Readable>,
  dbEnv: Record<string, string | undefined>,
  schema: string,
  toBlock: number,
  timeoutMs: number,
): Promise<IndexerRun> {
  const started = performance.now();
  const errors: string[] = [];
  // lines that are not JSON log entries (a program's last words before its logger exists)
  const other: string[] = [];
  const readLine = (line: string) => {
    if (line.trim() === '') return;
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      other.push(line.trim());
      return;
    }
    const level = typeof entry.level === 'number' ? (entry.level >= 50 ? 'error' : 'info') : entry.level;
    if (level !== 'error' && level !== 'fatal') return;
    // offline, SubQuery's node fails to reach its dictionary registry at start and goes on without
    if (/dictionary/i.test(`${entry.category} ${entry.message ?? entry.msg}`)) return;
    errors.push(describeError(entry));
  };
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream, crlfDelay: Infinity }).on('line', readLine);
  let exit: number | null | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', (code) => ((exit = code), resolve())));
  const db = await createDb({ env: dbEnv });
  const committed = async () => {
    const rows = await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = 'lastProcessedHeight'`).catch(
      () => [],
    );
    return rows[0] === undefined ? null : Number(rows[0].value);
  };
  try {
    const deadline = Date.now() + timeoutMs;
    let height: number | null = null;
    while (exit === undefined && Date.now() < deadline) {
      height = await committed();
      if (height !== null && height >= toBlock) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - started) / 1000;
    if (exit === undefined) {
      child.kill('SIGTERM');
      await exited;
    }
    height = await committed();
    if (height !== null && height >= toBlock) return { indexedTo: height, seconds };
    const why = exit === undefined || exit === null ? `still at ${height ?? 'no block'} after ${timeoutMs / 1000} s` : `exited with ${exit}`;
    const said = other.find((l) => /error/i.test(l));
    return { indexedTo: height, error: errors[0] ?? said ?? why, seconds };
  } finally {
    if (exit === undefined) child.kill('SIGKILL');
    await db.close();
  }
}

interface ErrorPayload {
  message?: string;
  cause?: ErrorPayload;
}

interface LogEntry {
  level?: string | number;
  message?: string;
  msg?: string;
  category?: string;
  /** SubQuery's node: the error logged */
  payload?: ErrorPayload;
  /** idx-node (pino): the error logged */
  err?: ErrorPayload;
}

/** One line: what the indexer said, then the error it logged and its causes (their first lines only). */
function describeError(entry: LogEntry): string {
  const parts = [entry.message ?? entry.msg ?? ''];
  for (let e = entry.payload ?? entry.err; e !== undefined; e = e.cause) if (e.message) parts.push(e.message);
  return [...new Set(parts.map(firstLine).filter(Boolean))].join(': ');
}

/** A message's first line, and the next one too when the first only introduces it (`… is invalid:`). */
function firstLine(message: string): string {
  const [first = '', second] = message.split('\n');
  return (first.trim().endsWith(':') && second !== undefined ? `${first.trim()} ${second.trim()}` : first).trim();
}
