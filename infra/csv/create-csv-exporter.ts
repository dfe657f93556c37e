import { mkdir, open, stat, truncate } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { EntityModel, SchemaModel } from '../../domain/entities/entity-model.ts';
import type { StoreOperation } from '../../domain/entities/entity-store.ts';
import { IdxError } from '../../domain/errors.ts';
import { csvHeader, csvLine, csvRow } from './csv-format.ts';

/**
 * What the node records in `_metadata` (key `csvExport`) in the same transaction as the rows'
 * entity writes: the folder and each file's size after them.
 */
export interface CsvExportState {
  dir: string;
  /** entity name → bytes of `<EntityName>.csv` */
  files: Record<string, number>;
}

export interface CsvExporter {
  /**
   * Makes the files agree with the database: bytes appended by a flush that never committed are
   * cut off. Returns the state to record now when none was recorded for this folder yet.
   */
  restore(recorded: unknown): Promise<CsvExportState | undefined>;
  /** Appends one row per `set`, in order, and syncs the files; returns the state to commit with the flush. */
  append(operations: readonly StoreOperation[]): Promise<CsvExportState>;
}

/**
 * `--csv-out-dir`: every `set` appends a row to `<EntityName>.csv` (header first); removes are not
 * written; `_metadata` and `_poi` never are. Rows are written and synced before the database commit
 * of their flush, and the file sizes go into that commit: after a crash, `restore` cuts the files
 * back to the committed sizes, so a restart neither loses nor repeats a row.
 */
export function createCsvExporter(options: { dir: string; model: SchemaModel }): CsvExporter {
  const dir = resolve(options.dir);
  const entities = new Map<string, EntityModel>(options.model.entities.map((e) => [e.name, e]));
  const fileOf = (entity: string) => join(dir, `${entity}.csv`);
  const sizes = new Map<string, number>();

  async function sizeOf(entity: string): Promise<number> {
    try {
      return (await stat(fileOf(entity))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
  }

  const state = (): CsvExportState => ({ dir, files: Object.fromEntries([...entities.keys()].map((e) => [e, sizes.get(e) ?? 0])) });

  return {
    async restore(recorded) {
      try {
        await mkdir(dir, { recursive: true });
      } catch (err) {
        throw new IdxError('CSV_DIR_FAILED', `--csv-out-dir ${options.dir}: cannot create the folder (${(err as Error).message})`, { cause: err });
      }
      const r = recorded as Partial<CsvExportState> | undefined;
      const known = r !== undefined && r !== null && r.dir === dir && typeof r.files === 'object' && r.files !== null;
      for (const entity of entities.keys()) {
        const size = await sizeOf(entity);
        const committed = known ? r.files![entity] : undefined;
        if (typeof committed === 'number' && size > committed) {
          await truncate(fileOf(entity), committed);
          sizes.set(entity, committed);
        } else {
          sizes.set(entity, size);
        }
      }
      return known ? undefined : state();
    },

    async append(operations) {
      const lines = new Map<string, string[]>();
      for (const op of operations) {
        if (op.op !== 'set' || op.data === undefined) continue;
        const entity = entities.get(op.entity);
        if (entity === undefined) continue;
        let list = lines.get(op.entity);
        if (list === undefined) lines.set(op.entity, (list = []));
        list.push(csvRow(entity, op.data, op.height));
      }
      for (const [name, list] of lines) {
        const text = (sizes.get(name) ?? 0) === 0 ? csvLine(csvHeader(entities.get(name)!)) + list.join('') : list.join('');
        const bytes = Buffer.from(text);
        const file = await open(fileOf(name), 'a');
        try {
          await file.write(bytes);
          await file.sync();
        } catch (err) {
          throw new IdxError('CSV_WRITE_FAILED', `--csv-out-dir: writing ${fileOf(name)} failed (${(err as Error).message})`, { cause: err });
        } finally {
          await file.close();
        }
        sizes.set(name, (sizes.get(name) ?? 0) + bytes.length);
      }
      return state();
    },
  };
}
