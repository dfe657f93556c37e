import { createHash } from 'node:crypto';
import { parseAst } from 'rollup/parseAst';

type Node = { type: string; [key: string]: unknown };

export interface HandlerCodeHashes {
  /** the whole bundle's hash: any change at all */
  bundle: string;
  /** an exported function's name → the hash of the code it can reach (see handlerCodeHashes) */
  handlers: Record<string, string>;
}

/**
 * What each exported handler of a built mapping bundle (one CommonJS file, `idx build`'s) runs, as a
 * hash: its own code, every top-level declaration it reaches through names, and every top-level
 * statement that runs on load (side effects reach every handler). Two bundles give a handler the same
 * hash when that code is the same up to the names of its local variables, which the minifier picks
 * over the whole file. The classes codegen writes for the entities (a top-level class with an
 * `_name` getter returning its own name, one of `entities`) count by name only: their code follows
 * from schema.graphql, whose changes are judged on their own. A bundle that cannot be parsed gives
 * every handler the whole bundle's hash, so any change counts as a change of every handler.
 */
export function handlerCodeHashes(code: string, names: readonly string[], entities: ReadonlySet<string>): HandlerCodeHashes {
  const bundle = sha(code);
  let program: Node;
  try {
    program = parseAst(code) as unknown as Node;
  } catch {
    return { bundle, handlers: Object.fromEntries(names.map((n) => [n, bundle])) };
  }
  const body = program.body as Node[];
  const declared = new Map<string, Node>();
  const exported = new Map<string, Node>();
  const onLoad: string[] = [];
  for (const statement of body) {
    const names = topLevelNames(statement);
    if (names.length > 0) for (const n of names) declared.set(n, statement);
    else if (exportAssignments(statement) !== undefined) for (const [n, value] of exportAssignments(statement)!) exported.set(n, value);
    else onLoad.push(canonical(statement, new Set(), entities));
  }
  const topNames = new Set(declared.keys());
  const handlers: Record<string, string> = {};
  for (const name of names) {
    const root = exported.get(name) ?? declared.get(name);
    if (root === undefined) {
      handlers[name] = bundle;
      continue;
    }
    const seen = new Set<Node>();
    const parts: string[] = [];
    const visit = (node: Node) => {
      if (seen.has(node)) return;
      seen.add(node);
      const model = modelClassName(node, entities);
      parts.push(model !== undefined ? `entity class ${model}` : canonical(node, topNames, entities));
      if (model !== undefined) return;
      for (const used of freeNames(node, topNames)) {
        const decl = declared.get(used);
        if (decl !== undefined) visit(decl);
      }
    };
    visit(root);
    handlers[name] = sha([...onLoad, ...parts.sort()].join('\n'));
  }
  return { bundle, handlers };
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** `exports.A = a, exports.B = b;` (rollup joins them) → [A, a], [B, b]; undefined when the statement does anything else */
function exportAssignments(statement: Node): [string, Node][] | undefined {
  if (statement.type !== 'ExpressionStatement') return undefined;
  const e = statement.expression as Node;
  const parts = e.type === 'SequenceExpression' ? (e.expressions as Node[]) : [e];
  const out: [string, Node][] = [];
  for (const part of parts) {
    if (part.type !== 'AssignmentExpression' || part.operator !== '=') return undefined;
    const left = part.left as Node;
    if (left.type !== 'MemberExpression' || left.computed) return undefined;
    const object = left.object as Node;
    const property = left.property as Node;
    if (object.type !== 'Identifier' || object.name !== 'exports' || property.type !== 'Identifier') return undefined;
    out.push([property.name as string, part.right as Node]);
  }
  return out;
}

function topLevelNames(statement: Node): string[] {
  if ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && statement.id) return [(statement.id as Node).name as string];
  if (statement.type === 'VariableDeclaration') return (statement.declarations as Node[]).flatMap((d) => bindingNames(d.id as Node));
  return [];
}

function bindingNames(pattern: Node | null): string[] {
  if (pattern === null) return [];
  switch (pattern.type) {
    case 'Identifier':
      return [pattern.name as string];
    case 'ObjectPattern':
      return (pattern.properties as Node[]).flatMap((p) => bindingNames((p.type === 'RestElement' ? p.argument : p.value) as Node));
    case 'ArrayPattern':
      return (pattern.elements as (Node | null)[]).flatMap((e) => bindingNames(e));
    case 'RestElement':
      return bindingNames(pattern.argument as Node);
    case 'AssignmentPattern':
      return bindingNames(pattern.left as Node);
    default:
      return [];
  }
}

/** a codegen entity class: `let X = class X { get _name() { return "X" } … }` (or `class X …`) */
function modelClassName(statement: Node, entities: ReadonlySet<string>): string | undefined {
  const cls =
    statement.type === 'ClassDeclaration'
      ? statement
      : statement.type === 'VariableDeclaration' && (statement.declarations as Node[]).length === 1
        ? ((statement.declarations as Node[])[0]!.init as Node | null)
        : undefined;
  if (!cls || (cls.type !== 'ClassDeclaration' && cls.type !== 'ClassExpression')) return undefined;
  const name = (cls.id as Node | null)?.name as string | undefined;
  if (name === undefined || !entities.has(name)) return undefined;
  const getter = ((cls.body as Node).body as Node[]).find((m) => m.type === 'MethodDefinition' && m.kind === 'get' && (m.key as Node).name === '_name');
  const returned = (((getter?.value as Node | undefined)?.body as Node | undefined)?.body as Node[] | undefined)?.[0];
  const value = returned?.type === 'ReturnStatement' ? (returned.argument as Node | null)?.value : undefined;
  return value === name ? name : undefined;
}

const isKey = (parent: Node | undefined, key: string) =>
  parent !== undefined &&
  !parent.computed &&
  ((parent.type === 'MemberExpression' && key === 'property') ||
    ((parent.type === 'Property' || parent.type === 'MethodDefinition' || parent.type === 'PropertyDefinition') && key === 'key'));

/** Every name declared inside `node` (parameters, variables, inner functions and classes, catch clauses). */
function localNames(node: Node): Set<string> {
  const out = new Set<string>();
  walk(node, (n) => {
    if (n.type === 'VariableDeclarator') for (const b of bindingNames(n.id as Node)) out.add(b);
    if (n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression') {
      for (const p of n.params as Node[]) for (const b of bindingNames(p)) out.add(b);
      if (n.type === 'FunctionExpression' && n.id) out.add((n.id as Node).name as string);
    }
    if (n.type === 'CatchClause' && n.param) for (const b of bindingNames(n.param as Node)) out.add(b);
  });
  return out;
}

/** The names `node` uses and does not declare that are top-level names. */
function freeNames(node: Node, top: ReadonlySet<string>): Set<string> {
  const locals = localNames(node);
  const out = new Set<string>();
  walk(node, (n, parent, key) => {
    if (n.type === 'Identifier' && !isKey(parent, key) && top.has(n.name as string) && !locals.has(n.name as string)) out.add(n.name as string);
  });
  return out;
}

/**
 * The node as text without positions, its local names numbered in order of first use (the
 * minifier's choice of names is not a change of code); other names stay as written.
 */
function canonical(node: Node, top: ReadonlySet<string>, entities: ReadonlySet<string>): string {
  const locals = localNames(node);
  for (const n of topLevelNames(node)) locals.delete(n);
  const numbered = new Map<string, string>();
  const rename = (name: string) => {
    if (!locals.has(name) || top.has(name) || entities.has(name)) return name;
    let to = numbered.get(name);
    if (to === undefined) numbered.set(name, (to = `$${numbered.size}`));
    return to;
  };
  const text = (n: unknown, parent?: Node, key?: string): unknown => {
    if (Array.isArray(n)) return n.map((x) => text(x, parent, key));
    if (n === null || typeof n !== 'object') return typeof n === 'bigint' ? `${n}n` : n;
    const node = n as Node;
    if (node.type === 'Identifier') return isKey(parent, key ?? '') ? `#${node.name as string}` : rename(node.name as string);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) if (k !== 'start' && k !== 'end' && k !== 'raw' && k !== 'loc' && k !== 'range') out[k] = text(v, node, k);
    return out;
  };
  return JSON.stringify(text(node));
}

function walk(node: Node, visit: (n: Node, parent: Node | undefined, key: string) => void, parent?: Node, key = ''): void {
  visit(node, parent, key);
  for (const [k, v] of Object.entries(node)) {
    if (k === 'start' || k === 'end') continue;
    if (Array.isArray(v)) for (const x of v) if (x !== null && typeof x === 'object' && typeof (x as Node).type === 'string') walk(x as Node, visit, node, k);
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as Node).type === 'string') walk(v as Node, visit, node, k);
  }
}
