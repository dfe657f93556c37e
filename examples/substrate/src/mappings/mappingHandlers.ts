import type { SubstrateBlock, SubstrateEvent, SubstrateExtrinsic } from "@subql/types";
import type { Balance } from "@polkadot/types/interfaces";
import { Account, Batch, BlockSample, Transfer } from "../types";

// //Alice on the local chain (SS58, generic prefix)
const ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";

async function account(id: string): Promise<Account> {
  return (await Account.get(id)) ?? Account.create({ id, sent: BigInt(0), received: BigInt(0) });
}

export async function handleTransfer(event: SubstrateEvent): Promise<void> {
  const {
    event: {
      data: [from, to, amount],
    },
  } = event;
  const blockNumber = event.block.block.header.number.toNumber();
  const value = (amount as Balance).toBigInt();
  await Transfer.create({
    id: `${blockNumber}-${event.idx}`,
    blockNumber,
    date: event.block.timestamp,
    fromId: from.toString(),
    toId: to.toString(),
    amount: value,
    extrinsicHash: event.extrinsic?.extrinsic.hash.toHex(),
  }).save();
  const sender = await account(from.toString());
  sender.sent += value;
  await sender.save();
  const recipient = await account(to.toString());
  recipient.received += value;
  await recipient.save();
}

export async function handleBatch(call: SubstrateExtrinsic): Promise<void> {
  const { extrinsic } = call;
  await Batch.create({
    id: extrinsic.hash.toHex(),
    blockNumber: call.block.block.header.number.toNumber(),
    signer: extrinsic.isSigned ? extrinsic.signer.toString() : undefined,
    success: call.success,
    calls: (extrinsic.method.args[0] as unknown as unknown[]).length,
  }).save();
}

export async function handleBlock(block: SubstrateBlock): Promise<void> {
  const alice = await api.query.system.account(ALICE);
  await BlockSample.create({
    id: block.block.header.hash.toHex(),
    specVersion: block.specVersion,
    events: block.events.length,
    aliceFree: alice.data.free.toBigInt(),
  }).save();
}
