import { metadataFields } from '../../metadata-fields.ts';
import type { SchemaExtension } from '../schema-extension.ts';

/** `_metadata` and `_metadatas`: the indexed chains' state. */
export const metadata: SchemaExtension = {
  name: 'metadata',
  finish({ composer, project, version }) {
    metadataFields(composer, project.schema, version);
  },
};
