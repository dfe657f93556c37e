import { changesFields } from '../../changes-fields.ts';
import type { SchemaExtension } from '../schema-extension.ts';

/** `<entity>Changes(fromHeight, toHeight, …)` for the tables the node keeps `--changes-index` on. */
export const changes: SchemaExtension = {
  name: 'changes',
  finish({ composer, tables }) {
    changesFields(composer, tables);
  },
};
