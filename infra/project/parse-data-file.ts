import { basename } from 'node:path';
import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, type Document, type Tags } from 'yaml';
import { ValidationError, type Problem } from '../../domain/errors.ts';
import type { FieldPath, LocateField } from '../../domain/project/validate-manifest.ts';
import { findJsonSyntaxError } from './json-syntax-error.ts';

/** A parsed YAML or JSON file, with a way to find where each field was written. */
export interface ParsedDataFile {
  value: unknown;
  locate: LocateField;
}

/**
 * YAML as SubQuery writes it. Unquoted `0x…` stays a string: in manifests it is an address,
 * topic or selector, never a number (YAML 1.2 would read it as a hex integer and lose digits).
 * Merge keys (`<<`) are on because SubQuery's YAML reader accepts them.
 */
export function parseYamlText(text: string, file: string): ParsedDataFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    merge: true,
    customTags: (tags: Tags) => tags.filter((t) => !(typeof t === 'object' && 'format' in t && t.format === 'HEX')),
  });
  if (doc.errors.length > 0) {
    const problems: Problem[] = doc.errors.map((e) => {
      const at = lineCounter.linePos(e.pos[0]);
      return { path: basename(file), line: at.line, column: at.col, message: firstLine(e.message) };
    });
    throw new ValidationError(file, problems);
  }
  return { value: doc.toJS(), locate: createLocator(doc, lineCounter) };
}

/** JSON, with line and column on syntax errors. */
export function parseJsonText(text: string, file: string): ParsedDataFile {
  const source = text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    const found = findJsonSyntaxError(source);
    const problem: Problem = found
      ? { path: basename(file), ...lineColumnAt(source, found.offset), message: found.message }
      : { path: basename(file), message: (err as Error).message };
    throw new ValidationError(file, [problem]);
  }
  // Positions only: JSON is YAML flow syntax, so the YAML parser can tell where each field is.
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, uniqueKeys: false, prettyErrors: false });
  return { value, locate: createLocator(doc, lineCounter) };
}

function toLineColumn(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const at = lineCounter.linePos(offset);
  return { line: at.line, column: at.col };
}

function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/**
 * Walks the YAML node tree along a field path. A field that exists is located at its value;
 * a missing one at the key of its nearest existing parent (`network:` for a missing `network.chainId`).
 */
function createLocator(doc: Document, lineCounter: LineCounter): LocateField {
  return (path: FieldPath) => {
    let node: unknown = doc.contents;
    let anchor: number | undefined = isNode(node) ? node.range?.[0] : undefined;
    let found = true;
    let valueAt = anchor;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === String(seg));
        if (pair === undefined) {
          found = false;
          break;
        }
        const keyAt = isNode(pair.key) ? pair.key.range?.[0] : undefined;
        anchor = keyAt ?? anchor;
        node = pair.value;
        valueAt = (isNode(node) ? node.range?.[0] : undefined) ?? anchor;
      } else if (isSeq(node) && typeof seg === 'number' && seg < node.items.length) {
        node = node.items[seg];
        anchor = (isNode(node) ? node.range?.[0] : undefined) ?? anchor;
        valueAt = anchor;
      } else {
        found = false;
        break;
      }
    }
    const offset = found ? valueAt : anchor;
    return offset === undefined ? undefined : toLineColumn(lineCounter, offset);
  };
}
