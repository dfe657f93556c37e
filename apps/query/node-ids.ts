import { badInput } from './compile-filter.ts';
import { pluralize } from './postgraphile-inflection.ts';
import type { EntityTable } from './entity-tables.ts';

/**
 * Relay's global ids as PostGraphile (SubQuery's query service) makes them: base64 of the JSON
 * array `[<table name, pluralized>, <primary key>]`, e.g. `["transfers","0xab…-3"]`. idx keys them by
 * the entity's id, so a node id names the entity across all its versions (SubQuery's historical
 * tables key them by a random per-version `_id`, which no other database could reproduce).
 */
export function nodeIdOf(t: EntityTable, id: string): string {
  return Buffer.from(JSON.stringify([nodeAlias(t), id])).toString('base64');
}

/** `["transfers", "<id>"]` back from a node id; a string that is not one is the client's mistake. */
export function parseNodeId(nodeId: string): { alias: string; id: string } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(nodeId, 'base64').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || typeof decoded[0] !== 'string' || typeof decoded[1] !== 'string')
    throw badInput(
      `nodeId ${JSON.stringify(nodeId.length > 60 ? `${nodeId.slice(0, 60)}…` : nodeId)} is not a node id of this service (base64 of ["<table>","<id>"])`,
    );
  return { alias: decoded[0], id: decoded[1] };
}

/** The table part of a node id: PostGraphile pluralizes the table's name (already plural in SubQuery's tables). */
export function nodeAlias(t: EntityTable): string {
  return pluralize(t.entity.table);
}
