/**
 * What the embedded database's read-only login (idx-query's) may send. The socket server runs a
 * reader's statements with `default_transaction_read_only` on, so PostgreSQL itself refuses
 * writes and DDL; this check keeps the reader from turning that off, or from reaching around it:
 * - one statement per query, whose first word is a reading one (SELECT, WITH, VALUES, TABLE, SHOW,
 *   EXPLAIN, transaction control, SET/RESET of other settings, LISTEN, cursors, PREPARE/EXECUTE):
 *   no DO or CALL (they may COMMIT and go on in a new transaction), no COPY (writes files);
 * - no mention of the settings that make it read-only (`default_transaction_read_only`,
 *   `transaction_read_only`, `READ WRITE`, `SESSION CHARACTERISTICS`, `RESET ALL`, `DISCARD`), of
 *   `standard_conforming_strings` (which would make this check read strings differently from the
 *   server), of `SESSION AUTHORIZATION`, nor of functions that set settings or run SQL given as text
 *   (`set_config`, `query_to_xml`…, `ts_stat`, `ts_rewrite`) or stall the shared session (`pg_sleep`);
 * - no Unicode-escaped identifiers (`U&"…"`), which could spell any of those.
 * It reads the text as PostgreSQL's lexer does (strings, E'' strings, dollar quotes, quoted
 * identifiers, nested comments) so that nothing hides in what it takes for a string or a comment.
 */

const READING_FIRST_WORDS = new Set([
  'select',
  'with',
  'values',
  'table',
  'show',
  'explain',
  'begin',
  'start',
  'commit',
  'end',
  'rollback',
  'abort',
  'savepoint',
  'release',
  'set',
  'reset',
  'listen',
  'unlisten',
  'declare',
  'fetch',
  'move',
  'close',
  'prepare',
  'execute',
  'deallocate',
]);

const DENIED_NAMES = new Set([
  'default_transaction_read_only',
  'transaction_read_only',
  'standard_conforming_strings',
  'session_authorization',
  'set_config',
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'ts_stat',
  'ts_rewrite',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'lo_export',
  'lo_import',
]);

const DENIED_PAIRS: [string, string][] = [
  ['read', 'write'],
  ['reset', 'all'],
  ['session', 'authorization'],
  ['session', 'characteristics'],
];

interface Token {
  kind: 'word' | 'ident' | 'uident' | 'semicolon' | 'other';
  /** lower-cased for words; as written for quoted identifiers */
  text: string;
}

/** Why a reader may not run `sql`, or undefined when it may. */
export function readerRefusal(sql: string): string | undefined {
  const tokens = lex(sql);
  if (tokens === undefined) return 'the statement has an unterminated string, identifier or comment';
  let statements = 0;
  let first: string | undefined;
  let prev: Token | undefined;
  let inStatement = false;
  for (const tok of tokens) {
    if (tok.kind === 'semicolon') {
      inStatement = false;
      prev = undefined;
      continue;
    }
    if (!inStatement) {
      inStatement = true;
      statements++;
      if (statements > 1) return 'one statement at a time: a query string holds several';
      first = undefined;
    }
    if (tok.kind === 'uident') return 'Unicode-escaped identifiers (U&"…") are not accepted';
    if (tok.kind === 'word' && first === undefined) {
      first = tok.text;
      if (!READING_FIRST_WORDS.has(first)) return `${first.toUpperCase()} is not a reading statement`;
    }
    if (tok.kind === 'word' || tok.kind === 'ident') {
      const name = tok.text.toLowerCase();
      if (DENIED_NAMES.has(name)) return `${name} is not accepted`;
      if (prev?.kind === 'word' && tok.kind === 'word' && DENIED_PAIRS.some(([a, b]) => prev!.text === a && name === b)) {
        return `${prev.text.toUpperCase()} ${name.toUpperCase()} is not accepted`;
      }
    }
    prev = tok;
  }
  return undefined;
}

const isIdentStart = (c: string) => /[A-Za-z_\u0080-\uffff]/.test(c);
const isIdentChar = (c: string) => /[A-Za-z0-9_$\u0080-\uffff]/.test(c);

/** PostgreSQL's tokens as far as the check needs them; undefined when something is left open. */
function lex(sql: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && next === '-') {
      while (i < n && sql[i] !== '\n' && sql[i] !== '\r') i++;
    } else if (c === '/' && next === '*') {
      let depth = 0;
      while (i < n) {
        if (sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else i++;
      }
      if (depth !== 0) return undefined;
    } else if (c === "'") {
      const end = quoted(sql, i, "'", false);
      if (end < 0) return undefined;
      out.push({ kind: 'other', text: '' });
      i = end;
    } else if (c === '"') {
      const end = quoted(sql, i, '"', false);
      if (end < 0) return undefined;
      out.push({ kind: 'ident', text: sql.slice(i + 1, end - 1).replace(/""/g, '"') });
      i = end;
    } else if (c === '$' && next !== undefined && /[0-9]/.test(next)) {
      i++;
      while (i < n && /[0-9]/.test(sql[i]!)) i++;
      out.push({ kind: 'other', text: '' });
    } else if (c === '$') {
      const tag = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i, i + 200));
      if (tag === null) {
        i++;
        out.push({ kind: 'other', text: '' });
        continue;
      }
      const close = sql.indexOf(tag[0], i + tag[0].length);
      if (close < 0) return undefined;
      out.push({ kind: 'other', text: '' });
      i = close + tag[0].length;
    } else if ((c === 'u' || c === 'U') && next === '&' && sql[i + 2] === '"') {
      out.push({ kind: 'uident', text: '' });
      i += 2;
    } else if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentChar(sql[j]!)) j++;
      const word = sql.slice(i, j);
      if ((word === 'e' || word === 'E') && sql[j] === "'") {
        const end = quoted(sql, j, "'", true);
        if (end < 0) return undefined;
        out.push({ kind: 'other', text: '' });
        i = end;
      } else {
        out.push({ kind: 'word', text: word.toLowerCase() });
        i = j;
      }
    } else if (/[0-9]/.test(c) || (c === '.' && next !== undefined && /[0-9]/.test(next))) {
      let j = i + 1;
      // letters after digits (1e5, 0x1f) are read as a word: a name glued to a number still counts
      while (j < n && /[0-9_.]/.test(sql[j]!)) j++;
      out.push({ kind: 'other', text: '' });
      i = j;
    } else if (c === ';') {
      out.push({ kind: 'semicolon', text: ';' });
      i++;
    } else {
      out.push({ kind: 'other', text: c });
      i++;
    }
  }
  return out;
}

/** The index after the closing quote of the quoted text starting at `start`; -1 when unterminated. */
function quoted(sql: string, start: number, quote: string, backslashes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i]!;
    if (backslashes && c === '\\') i += 2;
    else if (c === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return -1;
}
