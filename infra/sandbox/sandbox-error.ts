import { IdxError, type ErrorCode } from '../../domain/errors.ts';

/**
 * A mapping failure: the code says which (`HANDLER_FAILED`, `SANDBOX_TIMEOUT`,
 * `SANDBOX_MEMORY_LIMIT`, `SANDBOX_LOAD_FAILED`, `MODULE_NOT_ALLOWED`, `HANDLER_NOT_FOUND`), the
 * fields say where, and the message says both for the user.
 */
export class SandboxError extends IdxError {
  /** the handler that was running, when one was */
  readonly handler?: string;
  /** the block being processed */
  readonly height?: number;
  /** `src/mappings/x.ts:12:9`: where in the project's source the error was thrown */
  readonly location?: string;
  /** the mapping's stack, through the source map */
  readonly mappingStack?: string;

  constructor(
    code: ErrorCode,
    message: string,
    details: { handler?: string; height?: number; location?: string; mappingStack?: string; cause?: unknown } = {},
  ) {
    super(code, message, { cause: details.cause });
    this.name = 'SandboxError';
    this.handler = details.handler;
    this.height = details.height;
    this.location = details.location;
    this.mappingStack = details.mappingStack;
  }
}
