import { ValidationError } from './errors.ts';

/**
 * Bounds on the files users give idx (manifests, `-c` config files, schema.graphql, chain types,
 * ABIs): a file past one is refused naming the file, instead of exhausting memory or the stack
 * (a YAML alias bomb, a 3,000-deep nesting). Far above what real projects hold: the manifests and
 * schemas of SubQuery's starters are a few kilobytes and nest under 15 levels. docs/usage.md,
 * "Limits on project files".
 */
export const INPUT_LIMITS = {
  /** a manifest, config, schema or chain types file */
  maxFileBytes: 16 * 1024 * 1024,
  /** a JSON ABI or contract artifact (artifacts carry bytecode and sometimes the AST) */
  maxAbiBytes: 64 * 1024 * 1024,
  /** YAML is parsed twice as slowly as JSON and holds manifests, never generated data */
  maxYamlBytes: 4 * 1024 * 1024,
  /** objects and lists within each other (in YAML, JSON, an ABI's structs) or brackets in GraphQL */
  maxDepth: 100,
  /** the `yaml` package's `maxAliasCount`: alias uses weighted by the aliases they hold */
  maxYamlAliases: 10_000,
  /** GraphQL tokens of a schema (a schema of 100 entities of 20 fields has about 15,000) */
  maxSchemaTokens: 200_000,
} as const;

/** The refusal of a file past a limit: exit 1 with the file named, as for any invalid input. */
export function inputTooLarge(file: string, what: string): ValidationError {
  return new ValidationError(file, [{ path: file.split(/[\\/]/).pop()!, message: what }]);
}

/** Refuses `text` when it is longer than `maxBytes` (counted as UTF-16 units × 3 at most, so without encoding it first). */
export function checkTextSize(text: string, file: string, maxBytes: number): void {
  if (text.length * 3 <= maxBytes) return;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > maxBytes) throw inputTooLarge(file, `the file has ${bytes} bytes; idx reads at most ${maxBytes} bytes from such a file`);
}

/**
 * The deepest nesting of `{`, `[` and `(` in JSON or GraphQL text, outside strings (`"…"`, GraphQL's
 * `"""…"""`) and `#` comments; counting stops past `limit`. Scanned without recursion, before a
 * recursive parser sees the text.
 */
export function bracketDepth(text: string, limit: number = INPUT_LIMITS.maxDepth): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        // a block string escapes only \"""
        let j = end;
        while (j > 0 && text[j - 1] === '\\') j = text.indexOf('"""', j + 3);
        if (j < 0) return deepest;
        i = j + 2;
        continue;
      }
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 0x22 && text.charCodeAt(j) !== 0x0a) j += text.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      i = j;
    } else if (c === 0x23 /* # */) {
      const end = text.indexOf('\n', i);
      if (end < 0) return deepest;
      i = end;
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

/** Refuses text nested deeper than {@link INPUT_LIMITS.maxDepth} (JSON or GraphQL). */
export function checkBracketDepth(text: string, file: string): void {
  if (bracketDepth(text) > INPUT_LIMITS.maxDepth) throw tooDeep(file);
}

/**
 * The nesting depth of a parsed value (objects and arrays), walked without recursion: `Infinity`
 * when it contains itself (YAML lets an alias sit inside its own anchor). An object reached twice
 * (a YAML alias) is walked once. Counting stops past `limit`.
 */
export function valueDepth(value: unknown, limit: number = INPUT_LIMITS.maxDepth): number {
  if (typeof value !== 'object' || value === null) return 0;
  const done = new Map<object, number>();
  const onPath = new Set<object>();
  // Maps and Sets too: a project.ts manifest holds them (`assets: new Map(…)`)
  const children = (v: object): unknown[] => (Array.isArray(v) ? v : v instanceof Map ? [...v.values()] : v instanceof Set ? [...v] : Object.values(v));
  const stack: { node: object; items: unknown[]; next: number; deepest: number }[] = [];
  const enter = (node: object) => {
    onPath.add(node);
    stack.push({ node, items: children(node), next: 0, deepest: 0 });
  };
  enter(value);
  while (stack.length > 0) {
    if (stack.length > limit) return stack.length;
    const top = stack[stack.length - 1]!;
    if (top.next < top.items.length) {
      const child = top.items[top.next++];
      if (typeof child !== 'object' || child === null) continue;
      if (onPath.has(child)) return Infinity;
      const known = done.get(child);
      if (known !== undefined) top.deepest = Math.max(top.deepest, known);
      else enter(child);
      continue;
    }
    stack.pop();
    onPath.delete(top.node);
    const depth = top.deepest + 1;
    done.set(top.node, depth);
    if (stack.length > 0) stack[stack.length - 1]!.deepest = Math.max(stack[stack.length - 1]!.deepest, depth);
    else return depth;
  }
  return 0;
}

/** Refuses a parsed value nested deeper than {@link INPUT_LIMITS.maxDepth}, or containing itself. */
export function checkValueDepth(value: unknown, file: string): void {
  const depth = valueDepth(value);
  if (depth === Infinity) throw inputTooLarge(file, 'a value contains itself (in YAML, an alias inside its own anchor); idx reads only values that end');
  if (depth > INPUT_LIMITS.maxDepth) throw tooDeep(file);
}

export function tooDeep(file: string): ValidationError {
  return inputTooLarge(file, `nested more than ${INPUT_LIMITS.maxDepth} levels deep; idx reads at most ${INPUT_LIMITS.maxDepth} levels`);
}
