import t from 'tap';
import { decodeEventLog, decodeFunctionResult, encodeFunctionData, keccak256, toHex } from 'viem/utils';
import { anvilForTest } from '../test/support/anvil.ts';
import { createEthereumSource } from '../infra/chains/ethereum/create-ethereum-source.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { testErc20Abi } from './contracts/test-erc20.artifact.ts';
import { makeErc20Workload } from './make-erc20-workload.ts';

const TRANSFER = keccak256(toHex('Transfer(address,address,uint256)'));
const APPROVAL = keccak256(toHex('Approval(address,address,uint256)'));

t.test('the workload has exactly the asked Transfer and Approval events, and balances add up', async (t) => {
  const anvil = await anvilForTest(t);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  const source = createEthereumSource(client);
  const options = { blocks: 60, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 20, recipients: 100 };
  const started = Date.now();
  const work = await makeErc20Workload(client, options);
  t.comment(`${options.blocks} blocks × ${options.transfersPerBlock + options.approvalsPerBlock} transactions in ${Date.now() - started} ms`);

  t.equal(work.toBlock - work.fromBlock + 1, 60);
  t.equal(work.transfers, 1_200);
  t.equal(work.approvals, 120);
  t.equal(new Set(work.senders).size, 20);
  t.equal(new Set(work.recipients).size, 100);
  t.equal(await createEthereumSource(client).bestHeight(), work.toBlock);

  const logs = await source.getLogs({ fromBlock: work.startBlock, toBlock: work.toBlock, address: [work.token] });
  const inWorkload = logs.filter((l) => l.blockNumber >= work.fromBlock);
  const perBlock = new Map<number, { transfers: number; approvals: number }>();
  for (const l of inWorkload) {
    const c = perBlock.get(l.blockNumber) ?? { transfers: 0, approvals: 0 };
    if (l.topics[0] === TRANSFER) c.transfers++;
    else if (l.topics[0] === APPROVAL) c.approvals++;
    perBlock.set(l.blockNumber, c);
  }
  t.equal(perBlock.size, 60);
  t.ok(
    [...perBlock.values()].every((c) => c.transfers === 20 && c.approvals === 2),
    'every block: 20 Transfer, 2 Approval',
  );
  t.equal(logs.filter((l) => l.blockNumber === work.mintBlock && l.topics[0] === TRANSFER).length, 20, 'one mint per sender');

  // replaying the Transfer events gives the contract's own balanceOf for every account
  const balances = new Map<string, bigint>();
  for (const l of logs) {
    if (l.topics[0] !== TRANSFER) continue;
    const { args } = decodeEventLog({ abi: testErc20Abi, eventName: 'Transfer', data: l.data as `0x${string}`, topics: l.topics as [`0x${string}`] });
    const { from, to, value } = args as { from: string; to: string; value: bigint };
    balances.set(from.toLowerCase(), (balances.get(from.toLowerCase()) ?? 0n) - value);
    balances.set(to.toLowerCase(), (balances.get(to.toLowerCase()) ?? 0n) + value);
  }
  const accounts = [...work.senders, ...work.recipients];
  const results = await client.batch<`0x${string}`>(
    accounts.map((a) => ({
      method: 'eth_call',
      params: [{ to: work.token, data: encodeFunctionData({ abi: testErc20Abi, functionName: 'balanceOf', args: [a as `0x${string}`] }) }, 'latest'],
    })),
  );
  const onChain = results.map((r) => decodeFunctionResult({ abi: testErc20Abi, functionName: 'balanceOf', data: r }));
  t.same(
    onChain,
    accounts.map((a) => balances.get(a) ?? 0n),
  );
  t.equal(await client.request('anvil_getAutomine'), true, 'automine restored');

  const again = await makeErc20Workload(client, { ...options, blocks: 2, token: work.token, seed: 7 });
  t.equal(again.token, work.token, 'a second workload on the same token and senders');
  t.equal(again.mintBlock, work.toBlock, 'the senders still have plenty: no second mint');
  t.equal(again.fromBlock, work.toBlock + 1);
  const more = await source.getLogs({ fromBlock: again.fromBlock, toBlock: again.toBlock, topics: [[TRANSFER]] });
  t.equal(more.length, 40);
});
