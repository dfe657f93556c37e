import { basename } from 'node:path';
import { isMap, isNode, isScalar, isSeq, LineCounter, Parser, parseDocument, type CST, type Document, type Tags } from 'yaml';
import { ValidationError, type Problem } from '../../domain/errors.ts';
import { bracketDepth, checkBracketDepth, checkTextSize, checkValueDepth, INPUT_LIMITS, inputTooLarge, tooDeep } from '../../domain/input-limits.ts';
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
 * Merge keys (`<<`) are on because SubQuery's YAML reader accepts them. Bounded
 * (domain/input-limits.ts): size, nesting (checked on the syntax tree before the recursive
 * composer runs), alias expansion (a "billion laughs" file), and aliases inside their own anchor.
 */
export function parseYamlText(text: string, file: string): ParsedDataFile {
  checkTextSize(text, file, INPUT_LIMITS.maxYamlBytes);
  if (yamlDepth(text) > INPUT_LIMITS.maxDepth) throw tooDeep(file);
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
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: INPUT_LIMITS.maxYamlAliases });
  } catch (err) {
    // the yaml package's guard against alias bombs throws a ReferenceError
    if (!(err instanceof ReferenceError) || !/alias/i.test(err.message)) throw err;
    throw inputTooLarge(
      file,
      `its aliases (*name) expand to too much data (more than ${INPUT_LIMITS.maxYamlAliases} uses, weighted by the aliases they hold); write the values out or use fewer aliases`,
    );
  }
  checkValueDepth(value, file);
  return { value, locate: createLocator(doc, lineCounter) };
}

/**
 * How deeply the collections of a YAML text nest, from its concrete syntax tree (the `yaml`
 * package's Parser keeps its own stack, so this never recurses); counting stops past the limit.
 */
function yamlDepth(text: string): number {
  let deepest = 0;
  const stack: [CST.Token | undefined, number][] = [];
  for (const token of new Parser().parse(text)) stack.push([token, 0]);
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    if (token === undefined) continue;
    if (token.type === 'document') {
      stack.push([token.value, depth]);
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > deepest) deepest = depth + 1;
      if (deepest > INPUT_LIMITS.maxDepth) return deepest;
      for (const item of token.items) {
        if ('key' in item) stack.push([item.key ?? undefined, depth + 1]);
        stack.push([item.value, depth + 1]);
      }
    }
  }
  return deepest;
}

/** JSON, with line and column on syntax errors; bounded in size and nesting as YAML is. */
export function parseJsonText(text: string, file: string): ParsedDataFile {
  const source = text.replace(/^\uFEFF/, '');
  checkTextSize(source, file, INPUT_LIMITS.maxFileBytes);
  // before the YAML parser below (recursive) reads it for positions
  checkBracketDepth(source, file);
  const value = parseJsonValue(source, file);
  // Positions only: JSON is YAML flow syntax, so the YAML parser can tell where each field is.
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, uniqueKeys: false, prettyErrors: false });
  return { value, locate: createLocator(doc, lineCounter) };
}

/**
 * JSON without positions, for large files (ABIs, contract artifacts): V8's JSON.parse does not
 * recurse, so only the size is bounded here; callers bound the depth of the part they walk.
 */
export function parseJsonValue(text: string, file: string, maxBytes: number = INPUT_LIMITS.maxFileBytes): unknown {
  const source = text.replace(/^\uFEFF/, '');
  checkTextSize(source, file, maxBytes);
  try {
    return JSON.parse(source);
  } catch (err) {
    // the syntax error finder recurses: only for text nested within the limit
    const found = bracketDepth(source) <= INPUT_LIMITS.maxDepth ? findJsonSyntaxError(source) : undefined;
    const problem: Problem = found
      ? { path: basename(file), ...lineColumnAt(source, found.offset), message: found.message }
      : { path: basename(file), message: (err as Error).message };
    throw new ValidationError(file, [problem]);
  }
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
