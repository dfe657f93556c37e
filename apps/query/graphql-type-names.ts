import type { SchemaComposer } from 'graphql-compose';
import type { EntityTable, QueryColumn, ValueKind } from './entity-tables.ts';
import { operatorsFor, type OperandShape } from '../../infra/postgres/read/filter-operators.ts';
import type { QueryContext } from './query-context.ts';

const KIND_TYPE: Record<Exclude<ValueKind, 'enum'>, string> = {
  string: 'String',
  bytes: 'String',
  int: 'Int',
  float: 'Float',
  bigfloat: 'BigFloat',
  boolean: 'Boolean',
  datetime: 'Datetime',
  json: 'JSON',
};

/** A column's GraphQL type name, list and non-null aside. */
export function typeOf(c: QueryColumn): string {
  return c.kind === 'enum' ? c.enumName! : KIND_TYPE[c.kind as Exclude<ValueKind, 'enum'>];
}

/** The filter input for a column's type (`IntFilter`, `StringListFilter`…), made the first time one is asked for. */
export function filterTypeOf(sc: SchemaComposer<QueryContext>, c: QueryColumn): string {
  const base = typeOf(c);
  const name = `${base}${c.list ? 'List' : ''}Filter`;
  if (!sc.has(name)) {
    const operand = (shape: OperandShape) =>
      ({
        value: c.list ? `[${base}]` : base,
        values: `[${base}${c.list ? '' : '!'}]`,
        boolean: 'Boolean',
        string: 'String',
        strings: '[String!]',
        json: 'JSON',
        item: base,
      })[shape];
    sc.createInputTC({
      name,
      description: `A filter on ${base}${c.list ? ' lists' : ''}; all given operators must hold.`,
      fields: Object.fromEntries(operatorsFor(c).map((op) => [op.name, { type: operand(op.shape) }])),
    });
  }
  return name;
}

/** The arguments of a connection field over `t`. */
export function connectionArgs(t: EntityTable) {
  return {
    first: { type: 'Int', description: `Only read the first n rows (at most --query-limit).` },
    last: { type: 'Int', description: 'Only read the last n rows (at most --query-limit).' },
    offset: { type: 'Int', description: 'Skip the first n rows.' },
    before: { type: 'Cursor', description: 'Read rows before this cursor.' },
    after: { type: 'Cursor', description: 'Read rows after this cursor.' },
    orderBy: { type: `[${t.names.orderBy}!]`, defaultValue: ['PRIMARY_KEY_ASC'], description: 'The order of the rows.' },
    orderByNull: { type: 'NullOrder', description: 'Where rows with NULL in an ordering column go.' },
    filter: { type: t.names.filter, description: 'Only rows that match.' },
    distinct: { type: `[${t.names.distinct}]`, description: 'One row per distinct value of these columns.' },
  };
}
