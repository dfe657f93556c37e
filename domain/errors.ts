/** The one base error: callers branch on `code`, users read `message`. */
export class IdxError extends Error {
  readonly code: string;
  readonly retryable: boolean;

  constructor(code: string, message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IdxError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/** One problem in a user's input, located by a field path or a line/column. */
export interface Problem {
  /** e.g. `dataSources[0].mapping.handlers[1].kind`, or a file name */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export function formatProblem(p: Problem): string {
  const at = p.line === undefined ? '' : `:${p.line}${p.column === undefined ? '' : `:${p.column}`}`;
  return `${p.path}${at}: ${p.message}`;
}

/** Invalid user input with every problem found, not just the first. */
export class ValidationError extends IdxError {
  readonly problems: Problem[];

  constructor(what: string, problems: Problem[]) {
    super('VALIDATION_FAILED', `${what} is invalid:\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`);
    this.name = 'ValidationError';
    this.problems = problems;
  }
}
