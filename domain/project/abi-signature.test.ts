import t from 'tap';
import { parseAbiSignature } from './abi-signature.ts';

const canonical = (text: string) => {
  const r = parseAbiSignature(text);
  return 'error' in r ? `error: ${r.error}` : r.canonical;
};

t.test('writes SubQuery-style signatures in canonical form', async (t) => {
  t.equal(canonical('Transfer(address,address,uint256)'), 'Transfer(address,address,uint256)');
  t.equal(canonical('Transfer(address indexed from, address indexed to, uint256 amount)'), 'Transfer(address,address,uint256)');
  t.equal(canonical('event Transfer(address indexed from, address indexed to, uint256 value)'), 'Transfer(address,address,uint256)');
  t.equal(canonical('approve(address spender, uint256 rawAmount)'), 'approve(address,uint256)');
  t.equal(canonical('function approve(address spender, uint amount) external returns (bool)'), 'approve(address,uint256)');
  t.equal(canonical('  ping ( ) '), 'ping()');
  t.equal(canonical('swap(uint[] memory amounts, bytes32[2] calldata ids, int x)'), 'swap(uint256[],bytes32[2],int256)');
  t.equal(canonical('fill((address maker, uint256 amount)[] orders, tuple(bool, bytes) extra)'), 'fill((address,uint256)[],(bool,bytes))');
  t.equal(canonical('Anon(uint8 indexed) anonymous'), 'Anon(uint8)');
  const parsed = parseAbiSignature('Transfer(address indexed from, address indexed to, uint256 amount)');
  t.same(parsed, { name: 'Transfer', inputs: ['address', 'address', 'uint256'], canonical: 'Transfer(address,address,uint256)' });
});

t.test('says why a signature is malformed', async (t) => {
  t.equal(canonical('Transfer'), 'error: expected "(" at character 9');
  t.equal(canonical('(address)'), 'error: expected a name like Transfer(…)');
  t.equal(canonical('Transfer(address,address,uint256'), 'error: expected ")" at character 33');
  t.equal(canonical('Transfer(adress,address,uint256)'), 'error: unknown type "adress"');
  t.equal(canonical('Transfer(uint7)'), 'error: unknown type "uint7"');
  t.equal(canonical('Transfer(bytes33)'), 'error: unknown type "bytes33"');
  t.equal(canonical('Transfer(address from to)'), 'error: unexpected "to" at character 23');
  t.equal(canonical('Transfer(address) view x'), 'error: unexpected "x" after the parameters');
});
