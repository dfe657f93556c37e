import { IdxError } from '../../domain/errors.ts';

/** A command-line mistake, in the user's words; every program exits 1 on it. */
export class UsageError extends IdxError {
  constructor(message: string) {
    super('BAD_ARGUMENT', message);
    this.name = 'UsageError';
  }
}
