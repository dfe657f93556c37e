import { keccak256, stringToBytes } from 'viem/utils';
import type { RpcClient } from '../infra/rpc/create-rpc-client.ts';
import { testEnsAbi, testEnsBytecode } from './contracts/test-ens.artifact.ts';
import { deployedAt, placeContract } from './deploy-contract.ts';
import type { Send } from './evm-projects-workload.ts';

/**
 * Where SubQuery's ethereum-ens starter finds ENS's contracts: its manifest's data sources with an address (the
 * registry, the old registry, the base registrar and the old controller). Its resolver, controller and name wrapper
 * data sources name none: they take those events from any contract.
 */
export const ENS_ADDRESSES = {
  registry: '0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e',
  oldRegistry: '0x314159265dd8dbb310642f98f50c066173c1259b',
  baseRegistrar: '0x57f1887a8BF19b14fC0dF6Fd9B2acc9Af147eA85',
  oldController: '0x283Af0B28c62C092C9727F1Ee09c02CA627EB7F5',
} as const;

const ROOT = `0x${'00'.repeat(32)}`;
const ZERO = '0x0000000000000000000000000000000000000000';
const labelhash = (label: string) => keccak256(stringToBytes(label));
/** the starter's node of a label under a node: keccak256 of the two hex texts' UTF-8 (its `concat`), not ENS's namehash */
const subnode = (node: string, label: string) => keccak256(stringToBytes(node + label));
/**
 * The node the starter's controller handlers look a label up by: keccak256 of the UTF-8 of its `.eth` node's bytes
 * written as a JavaScript array prints them ("147,205,…") followed by the label's hex.
 */
const ETH_NODE_TEXT = Array.from(Buffer.from('93cdeb708b7545dc668eb9280176169d1c33cfd8ed6f04690a0bcc88a93fc4ae', 'hex')).join(',');
const controllerNode = (label: string) => keccak256(stringToBytes(ETH_NODE_TEXT + label));
/** a name as the name wrapper encodes it (DNS wire format) */
const dnsName = (name: string) =>
  `0x${name
    .split('.')
    .map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]).toString('hex'))
    .join('')}00`;

/**
 * ENS: names owned in the registry (under the root and under a name, owned again, given to nobody), resolvers and TTLs
 * set, the old registry's events for names it still holds and for names migrated away (ignored), a resolver's records
 * (addresses by coin type, texts with and without values, a content hash, names with and without a NUL, keys,
 * interfaces, authorisations), names wrapped, fused, passed on one or several at a time and unwrapped, and the
 * controllers' registrations and renewals (one renewal from the old controller matches both controller data sources,
 * one label is refused for its dot). Not sent, as each stops SubQuery's node: the base registrar's NameRegistered and
 * NameRenewed (the first handler reads an argument the event does not have, the second asserts a registration only
 * the first makes), a TextChanged with a value (ethers leaves an event with an indexed string without named
 * arguments, so the handler's `args.key` is undefined and the non-null `key` cannot be written) and InterfaceChanged
 * (its handler returns no promise: idx awaits what it started, SubQuery's node fails, docs/mapping-api.md).
 */
export async function runEns(client: RpcClient, accounts: string[], send: Send): Promise<void> {
  const mine = () => client.request('evm_mine');
  for (const address of Object.values(ENS_ADDRESSES)) await placeContract(client, address, 'TestEns', testEnsAbi, testEnsBytecode);
  const [resolverA, resolverB] = [
    await deployedAt(client, 'TestEns', testEnsAbi, testEnsBytecode),
    await deployedAt(client, 'TestEns', testEnsAbi, testEnsBytecode),
  ];
  const at = (address: string) => (from: number, fn: string, args: unknown[]) => send(from, address, testEnsAbi, fn, args);
  const [registry, old, base, oldController] = [
    at(ENS_ADDRESSES.registry),
    at(ENS_ADDRESSES.oldRegistry),
    at(ENS_ADDRESSES.baseRegistrar),
    at(ENS_ADDRESSES.oldController),
  ];
  // the first resolver also wraps names and registers them (its data sources name no contract)
  const [ens, ens2] = [at(resolverA), at(resolverB)];
  const [eth, foo, bar, xyz] = ['eth', 'foo', 'bar', 'xyz'].map(labelhash) as [string, string, string, string];
  const ethNode = subnode(ROOT, eth);
  const fooNode = subnode(ethNode, foo);
  const xyzNode = subnode(ROOT, xyz);

  // names owned: eth under the root, foo under eth, its resolver and TTL, and the first resolver's address record
  await registry(0, 'newOwner', [ROOT, eth, accounts[1]]);
  await registry(1, 'newOwner', [ethNode, foo, accounts[2]]);
  await registry(2, 'newResolver', [fooNode, resolverA]);
  await registry(2, 'newTTL', [fooNode, 3600n]);
  await ens(2, 'addrChanged', [fooNode, accounts[3]]);
  await mine();
  // passed on, owned again, a name under foo given to nobody (the starter counts it out again), a TTL of no name
  await registry(2, 'transferNode', [fooNode, accounts[4]]);
  await registry(1, 'newOwner', [ethNode, foo, accounts[5]]);
  await registry(4, 'newOwner', [fooNode, bar, ZERO]);
  await registry(3, 'newTTL', [subnode(ROOT, labelhash('nobody')), 5n]);
  // the old registry: a name it still holds (owned, passed on, its TTL and resolver), one migrated away, the root's resolver
  await old(0, 'newOwner', [ROOT, xyz, accounts[6]]);
  await old(0, 'newOwner', [ROOT, eth, accounts[7]]);
  await old(6, 'transferNode', [xyzNode, accounts[8]]);
  await old(8, 'newTTL', [xyzNode, 100n]);
  await old(8, 'newTTL', [ethNode, 1n]);
  await old(8, 'newResolver', [xyzNode, resolverB]);
  await old(0, 'newResolver', [ROOT, resolverB]);
  await mine();
  // a resolver's records: coin types (one twice), text keys (one twice), a content hash, names (one with a NUL,
  // skipped), an ABI, a public key, an authorisation
  await ens(4, 'addressChanged', [fooNode, 60n, accounts[4]]);
  await ens(4, 'addressChanged', [fooNode, 60n, accounts[5]]);
  await ens(4, 'addressChanged', [fooNode, 0n, '0x76a914000000000000000000000000000000000000000088ac']);
  await ens(4, 'textChanged', [fooNode, 'url']);
  await ens(4, 'textChanged', [fooNode, 'avatar ✓']);
  await ens(4, 'textChanged', [fooNode, 'url']);
  await ens(4, 'contenthashChanged', [fooNode, '0xe3010170122029f2d17be6139079dc48696d1f582a8530eb9805b561eda517e22a892c7e3f1f']);
  await ens(4, 'nameChanged', [fooNode, 'foo.eth']);
  await ens(4, 'nameChanged', [fooNode, 'bad\u0000name']);
  await ens(4, 'abiChanged', [fooNode, 1n]);
  await ens(4, 'pubkeyChanged', [fooNode, labelhash('x'), labelhash('y')]);
  await ens(4, 'authorisationChanged', [fooNode, accounts[4], accounts[2], true]);
  await ens2(8, 'addrChanged', [xyzNode, accounts[2]]);
  await ens2(8, 'textChanged', [xyzNode, 'email']);
  await mine();
  // names wrapped: foo's token passed before it is wrapped (the starter makes the wrapped name then), fuses set, two
  // names passed at once (one never named), unwrapped; a name wrapped where the controllers look up "alice"
  const alice = labelhash('alice');
  const aliceNode = controllerNode(alice);
  await ens(3, 'transferSingle', [ZERO, accounts[3], BigInt(fooNode), 1n]);
  await ens(3, 'nameWrapped', [fooNode, dnsName('foo.eth'), accounts[3], 16, 2_000_000_000n]);
  await ens(3, 'fusesSet', [fooNode, 48, 3_000_000_000n]);
  await ens(1, 'nameWrapped', [aliceNode, dnsName('alice.eth'), accounts[1], 0, 0n]);
  await mine();
  await ens(3, 'transferBatch', [accounts[3], accounts[4], [BigInt(fooNode), BigInt(labelhash('unnamed'))], [1n, 1n]]);
  await ens(4, 'nameUnwrapped', [fooNode, accounts[4]]);
  await ens(4, 'nameUnwrapped', [xyzNode, accounts[4]]);
  await ens(4, 'fusesSet', [xyzNode, 1, 1n]);
  // registrations and renewals: alice named by the controller, bob by the old one, a renewal from the old controller
  // (both controller data sources take it: the first renames alice, the second finds it renamed), labels refused
  await ens(1, 'nameRegistered', ['alice', alice, accounts[1], 5n, 1n, 1_900_000_000n]);
  await oldController(2, 'nameRegisteredOld', ['bob', labelhash('bob'), accounts[2], 7n, 2_000_000_000n]);
  await oldController(1, 'nameRenewed', ['alice2', alice, 9n, 3_000_000_000n]);
  await ens(1, 'nameRegistered', ['a.b', labelhash('a.b'), accounts[1], 1n, 0n, 1n]);
  await ens(1, 'nameRenewed', ['nul\u0000', alice, 1n, 1n]);
  // the base registrar's token passed on (no registration: only the account is kept)
  await base(1, 'transferToken', [accounts[1], accounts[2], BigInt(alice)]);
  await mine();
}
