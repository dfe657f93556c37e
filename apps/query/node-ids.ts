import { pluralize } from './postgraphile-inflection.ts';
import type { EntityTable } from './entity-tables.ts';
import { textDepth } from './request-limits.ts';

/**
 * Relay's global ids as PostGraphile (SubQuery's query service) makes them: base64 of the JSON
 * array `[<table name, pluralized>, <primary key>]`, e.g. `["transfers","0xab…-3"]`. idx keys them by
 * the entity's id, so a node id names the entity across all its versions (SubQuery's historical
 * tables key them by a random per-version `_id`, which no other database could reproduce).
 */
export function nodeIdOf(t: EntityTable, id: string): string {
  return Buffer.from(JSON.stringify([nodeAlias(t), id])).toString('base64');
}

/**
 * `["transfers", "<id>"]` back from a node id, or undefined for a string that is not one (or whose
 * id holds NUL, which no stored id can): `node` and `<entity>ByNodeId` then answer null, as
 * PostGraphile's do (docs/DECISIONS.md). The decoded text is measured before JSON.parse, which
 * takes seconds over a megabyte of `[`.
 */
export function parseNodeId(nodeId: string): { alias: string; id: string } | undefined {
  const text = Buffer.from(nodeId, 'base64').toString('utf8');
  if (textDepth(text) > 1) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || typeof decoded[0] !== 'string' || typeof decoded[1] !== 'string') return undefined;
  if (decoded[1].includes('\u0000')) return undefined;
  return { alias: decoded[0], id: decoded[1] };
}

/** The table part of a node id: PostGraphile pluralizes the table's name (already plural in SubQuery's tables). */
export function nodeAlias(t: EntityTable): string {
  return pluralize(t.entity.table);
}
