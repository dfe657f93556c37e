import type { ReadStatement } from './read-statement.ts';

/** A statement any database answers: whether it answers at all. */
export const PING: ReadStatement = { text: 'select 1', values: [] };
