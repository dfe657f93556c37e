import { GraphQLError } from 'graphql';

/**
 * The bounds of a `search` string (docs/graphql.md, Full-text search). They keep one search from
 * holding the event loop or the database: the string is measured before it is read, and reading
 * it stops at the first bound passed.
 */
export const SEARCH_LIMITS = {
  /** characters (UTF-16 units) of the whole string */
  maxChars: 1000,
  /** words, each word of a "quoted phrase" counting; the operators between them are one fewer */
  maxTerms: 64,
  /** parentheses (or brackets) opened inside one another */
  maxNesting: 16,
} as const;

function tooLong(what: string, limit: number): GraphQLError {
  return new GraphQLError(`search: ${what}; shorten the search`, { extensions: { code: 'BAD_USER_INPUT', limit } });
}

/**
 * A `search` argument as the tsquery text SubQuery's query service makes of it (its PgSearchPlugin
 * runs pg-tsquery): words are ANDed, `or`, `,` and `|` OR, `-` and `!` negate, `word*` is a
 * prefix, `"two words"` a phrase; stray operators are dropped rather than refused. Empty when
 * nothing is left, which matches no row. A string past SEARCH_LIMITS is refused (BAD_USER_INPUT).
 *
 * Written by hand rather than calling pg-tsquery: its parser retries a regular expression that
 * backtracks at every character of a run of operators (cubic time: 2,000 characters took 7 s of
 * the event loop) and recurses once per word and parenthesis (a long string overflowed the stack).
 * This one reads the same grammar in one pass (search-query.test.ts compares the two on
 * thousands of strings); the places where pg-tsquery's regular expressions decide are noted.
 */
export function searchTsquery(search: string): string {
  if (search.length > SEARCH_LIMITS.maxChars)
    throw tooLong(`${search.length} characters is more than the ${SEARCH_LIMITS.maxChars} a search may have`, SEARCH_LIMITS.maxChars);
  const tree = new SearchReader(search).read();
  return tree === undefined ? '' : show(tree);
}

interface SearchNode {
  /** '&', '|' or '<->' between left and right; undefined for a word or phrase */
  type?: '&' | '|' | '<->';
  left?: SearchNode;
  right?: SearchNode;
  value?: string;
  /** `:*` or `*` after the word (a prefix search) */
  prefix?: string;
  quoted?: boolean;
  negated: boolean;
  /** where the text after this node starts */
  input: number;
}

const PRECEDENCE = { '|': 0, '&': 1, '<->': 2 } as const;

/** pg-tsquery's Node.toString: operators of lower precedence are parenthesized, negations wrap. */
function show(n: SearchNode): string {
  if (n.type === undefined) {
    if (!n.value) return '';
    const prefixed = `${n.value}${n.prefix ? ':*' : ''}`;
    return n.negated && n.quoted ? `!(${prefixed})` : `${n.negated ? '!' : ''}${prefixed}`;
  }
  const side = (s: SearchNode) => {
    const text = show(s);
    return s.type !== undefined && PRECEDENCE[n.type!] > PRECEDENCE[s.type] && !s.negated ? `(${text})` : text;
  };
  const content = `${side(n.left!)}${n.type}${side(n.right!)}`;
  return n.negated ? `!(${content})` : content;
}

// pg-tsquery's default options, read at a position (sticky) instead of on a sliced string
const OR = /\s*(?:[|,]|or)/iy;
const AND = /(?!\s*(?:[|,]|or))(?:[\s&+:|,!-]|and)*/iy;
const FOLLOWED_BY = /\s*>/y;
const NEGATES = /[!-]$/;
const QUOTED_WORD_SEP = /(?:[\s<()|&!]|:\*)+/;

const SPACE = /\s/;
/** characters its word pattern skips before a word: `[\s*&+<:,|]` */
const FILLER = /[\s*&+<:,|]/;
/** characters of its negation group: `[\s!-]` */
const NEGATION = /[\s!-]/;
/** characters of a word: `[^\s,|&+<>:*()[\]!]` (quotes and `-` included) */
const WORD = /[^\s,|&+<>:*()[\]!]/;
/** `.` in its phrase pattern stops at line terminators */
const LINE_END = /[\n\r\u2028\u2029]/;

/**
 * One search string read as pg-tsquery reads it. Its word pattern
 * `^[filler]*([negation]*)[filler]*(quoted phrase | word)` backtracks through every split of the
 * operator run before a word; tables built once from the end of the string give, for each
 * position, the split its backtracking would settle on, so that each try costs O(1).
 */
class SearchReader {
  private readonly n: number;
  /** length of the run of filler / negation / word / `!-` characters from each position */
  private readonly fillerRun: Int32Array;
  private readonly wordRun: Int32Array;
  private readonly bangRun: Int32Array;
  /** the first position at or after each that is not white space */
  private readonly nextSolid: Int32Array;
  /** for the negation group starting at x: where it ends in the split the regex settles on, or -1 */
  private readonly negationEnd: Int32Array;
  /** for the filler run starting at p: where the negation group starts in that split, or -1 */
  private readonly negationStart: Int32Array;
  private readonly nextQuote: Record<string, Int32Array>;
  private readonly nextLineEnd: Int32Array;
  private terms = 0;

  constructor(private readonly s: string) {
    const n = s.length;
    this.n = n;
    const filler = new Int32Array(n + 1);
    const negation = new Int32Array(n + 1);
    const word = new Int32Array(n + 1);
    const bang = new Int32Array(n + 1);
    const solid = new Int32Array(n + 1);
    const negEnd = new Int32Array(n + 1).fill(-1);
    const negStart = new Int32Array(n + 1).fill(-1);
    const dq = new Int32Array(n + 1).fill(n);
    const sq = new Int32Array(n + 1).fill(n);
    const le = new Int32Array(n + 1).fill(n);
    solid[n] = n;
    for (let i = n - 1; i >= 0; i--) {
      const c = s[i]!;
      filler[i] = FILLER.test(c) ? filler[i + 1]! + 1 : 0;
      negation[i] = NEGATION.test(c) ? negation[i + 1]! + 1 : 0;
      word[i] = WORD.test(c) ? word[i + 1]! + 1 : 0;
      bang[i] = c === '!' || c === '-' ? bang[i + 1]! + 1 : 0;
      solid[i] = SPACE.test(c) ? solid[i + 1]! : i;
      dq[i] = c === '"' ? i : dq[i + 1]!;
      sq[i] = c === "'" ? i : sq[i + 1]!;
      le[i] = LINE_END.test(c) ? i : le[i + 1]!;
    }
    // a split (filler, negation of length k from x, filler) succeeds when a word character follows
    // the second filler run, which takes all it can (no shorter run is followed by one)
    const wordAfterFiller = (q: number) => q + filler[q]! < n && word[q + filler[q]!]! > 0;
    for (let i = n - 1; i >= 0; i--) {
      // the negation group tries its longest run first: the last q in [i, i + negation[i]] that works
      const own = wordAfterFiller(i) ? i : -1;
      negEnd[i] = negation[i]! > 0 && negEnd[i + 1]! >= 0 ? negEnd[i + 1]! : own;
      const here = negEnd[i]! >= 0 ? i : -1;
      negStart[i] = filler[i]! > 0 && negStart[i + 1]! >= 0 ? negStart[i + 1]! : here;
    }
    this.fillerRun = filler;
    this.wordRun = word;
    this.bangRun = bang;
    this.nextSolid = solid;
    this.negationEnd = negEnd;
    this.negationStart = negStart;
    this.nextQuote = { '"': dq, "'": sq };
    this.nextLineEnd = le;
  }

  read(): SearchNode | undefined {
    let node = this.or(0, 0);
    if (node === undefined) return undefined;
    // what is left after the last operand: drop one character and read on, ANDing what follows
    let tail = node.input;
    while (tail < this.n) {
      tail++;
      const right = this.or(tail, 0);
      if (right !== undefined) {
        node = { type: '&', left: node, right, negated: false, input: right.input };
        tail = node.input;
      }
    }
    return node;
  }

  private match(re: RegExp, at: number): string | undefined {
    re.lastIndex = at;
    return re.exec(this.s)?.[0];
  }

  /** a chain of `operand <op> operand …` where `match` reads the operator */
  private chain(at: number, depth: number, op: RegExp, type: '&' | '|' | '<->', operand: (at: number, depth: number) => SearchNode | undefined) {
    let node = operand(at, depth);
    while (node !== undefined && node.input < this.n) {
      const m = this.match(op, node.input);
      if (m === undefined) return node;
      const right = operand(node.input + m.length, depth);
      if (right === undefined) return node;
      right.negated = right.negated || NEGATES.test(m);
      node = { type, left: node, right, negated: false, input: right.input };
    }
    return node;
  }

  private or(at: number, depth: number): SearchNode | undefined {
    return this.chain(at, depth, OR, '|', (a, d) => this.and(a, d));
  }

  private and(at: number, depth: number): SearchNode | undefined {
    return this.chain(at, depth, AND, '&', (a, d) => this.followedBy(a, d));
  }

  private followedBy(at: number, depth: number): SearchNode | undefined {
    return this.chain(at, depth, FOLLOWED_BY, '<->', (a, d) => this.word(a, d));
  }

  private word(at: number, depth: number): SearchNode | undefined {
    const { s, n } = this;
    const p = this.nextSolid[at]!;
    // `[!-]*[([]`: a group, negated when marked
    const open = p + this.bangRun[p]!;
    if (open < n && (s[open] === '(' || s[open] === '[')) {
      if (depth >= SEARCH_LIMITS.maxNesting) throw tooLong(`parentheses nested more than ${SEARCH_LIMITS.maxNesting} deep`, SEARCH_LIMITS.maxNesting);
      const node = this.or(open + 1, depth + 1);
      if (node !== undefined) {
        node.negated = node.negated || open > p;
        const q = this.nextSolid[node.input]!;
        node.input = q < n && (s[q] === ')' || s[q] === ']') ? q + 1 : q;
      }
      return node;
    }
    const x = this.negationStart[p]!;
    if (x < 0) return undefined;
    const q = this.negationEnd[x]!;
    const start = q + this.fillerRun[q]!;
    let end: number;
    let value: string;
    let quoted = false;
    let terms = 1;
    const close = s[start] === '"' || s[start] === "'" ? this.nextQuote[s[start]!]![start + 1]! : n;
    if (close < n && this.nextLineEnd[start + 1]! > close) {
      const parts = s.slice(start + 1, close).split(QUOTED_WORD_SEP);
      terms = parts.length;
      value = `"${parts.join('<->')}"`;
      end = close + 1;
      quoted = true;
    } else {
      end = start + this.wordRun[start]!;
      // single quotes would end the tsquery's own quoting
      value = s.slice(start, end).replace(/'/g, '');
    }
    this.terms += terms;
    if (this.terms > SEARCH_LIMITS.maxTerms)
      throw tooLong(`more than ${SEARCH_LIMITS.maxTerms} words (each word of a quoted phrase counts)`, SEARCH_LIMITS.maxTerms);
    // `(\*|:\*)*`: a prefix search
    let after = end;
    for (;;) {
      if (s[after] === '*') after += 1;
      else if (s[after] === ':' && s[after + 1] === '*') after += 2;
      else break;
    }
    return { value, prefix: s.slice(end, after), quoted, negated: q > x, input: after };
  }
}
