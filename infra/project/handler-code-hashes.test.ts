import t from 'tap';
import { handlerCodeHashes } from './handler-code-hashes.ts';

const entities = new Set(['Transfer']);
// the shape of idx build's bundle (one CommonJS file, top-level names kept, locals minified)
const bundle = (o: { transfer?: string; helper?: string; model?: string; onLoad?: string; more?: string } = {}) => `"use strict";
Object.defineProperty(exports,Symbol.toStringTag,{value:"Module"});${o.onLoad ?? ''}
let Transfer=class Transfer{constructor(t,e){this.id=t,this.value=e}get _name(){return"Transfer"}${o.model ?? ''}async save(){await store.set("Transfer",this.id,this)}};
async function handleTransfer(t){${o.transfer ?? 'let e=Transfer.create({id:t.id,value:t.args.value});await e.save();await note(t)'}}
async function note(t){${o.helper ?? 'logger.info(t.id)'}}
async function handleBlock(t){let e=Transfer.create({id:t.hash,value:0n});await e.save()}
${o.more ?? ''}exports.handleBlock=handleBlock,exports.handleTransfer=handleTransfer;`;
const hashes = (code: string) => handlerCodeHashes(code, ['handleTransfer', 'handleBlock'], entities).handlers;
const original = hashes(bundle());

t.test('the same code with other local names (the minifier picks them over the whole file) hashes the same', async (t) => {
  t.same(hashes(bundle({ transfer: 'let x=Transfer.create({id:t.id,value:t.args.value});await x.save();await note(t)' })), original);
  t.notSame(
    hashes(bundle({ transfer: 'let e=Transfer.create({id:t.id,value:t.args.amount});await e.save();await note(t)' })).handleTransfer,
    original.handleTransfer,
  );
});

t.test('a changed helper changes the hash of the handlers that reach it only', async (t) => {
  const changed = hashes(bundle({ helper: 'logger.warn(t.id)' }));
  t.not(changed.handleTransfer, original.handleTransfer);
  t.equal(changed.handleBlock, original.handleBlock);
});

t.test("a new handler leaves the others' hashes as they were", async (t) => {
  const code = bundle({ more: 'async function handleApproval(t){await note(t)}exports.handleApproval=handleApproval;' });
  const changed = handlerCodeHashes(code, ['handleTransfer', 'handleBlock', 'handleApproval'], entities).handlers;
  t.equal(changed.handleTransfer, original.handleTransfer);
  t.equal(changed.handleBlock, original.handleBlock);
  t.ok(changed.handleApproval);
});

t.test("codegen's entity classes count by name: their code follows from schema.graphql", async (t) => {
  t.same(hashes(bundle({ model: 'get memo(){return this._memo}' })), original);
  // a class that is not a codegen entity class is code like any other
  const other = handlerCodeHashes(bundle({ model: 'get memo(){return this._memo}' }), ['handleTransfer'], new Set()).handlers;
  t.not(other.handleTransfer, handlerCodeHashes(bundle(), ['handleTransfer'], new Set()).handlers.handleTransfer);
});

t.test('code that runs on load reaches every handler', async (t) => {
  const changed = hashes(bundle({ onLoad: 'globalThis.rate=2;' }));
  t.not(changed.handleTransfer, original.handleTransfer);
  t.not(changed.handleBlock, original.handleBlock);
});

t.test('a bundle that cannot be parsed, or a handler not found, gets the whole bundle hash', async (t) => {
  const bad = handlerCodeHashes('this is not javascript (', ['handleTransfer'], entities);
  t.equal(bad.handlers.handleTransfer, bad.bundle);
  const missing = handlerCodeHashes(bundle(), ['handleNothing'], entities);
  t.equal(missing.handlers.handleNothing, missing.bundle);
});
