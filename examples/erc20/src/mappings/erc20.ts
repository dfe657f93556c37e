import { Account, Transfer } from "../types";
import type { TransferLog } from "../types/abi-interfaces/Erc20Abi";

/** Records each Transfer event and moves the amount between the two accounts' balances. */
export async function handleTransfer(log: TransferLog): Promise<void> {
  const { from, to, value } = log.args;
  const amount = value.toBigInt();
  logger.debug(`transfer of ${amount} from ${from} to ${to} at block ${log.blockNumber}`);

  const transfer = Transfer.create({
    id: `${log.transactionHash}-${log.logIndex}`,
    blockHeight: BigInt(log.blockNumber),
    timestamp: new Date(Number(log.block.timestamp) * 1000),
    fromId: from,
    toId: to,
    value: amount,
    transactionHash: log.transactionHash,
    contractAddress: log.address,
  });
  await transfer.save();

  // Mints come from the zero address, so its balance goes negative by the total supply.
  const sender = await loadAccount(from);
  sender.balance -= amount;
  await sender.save();
  const receiver = await loadAccount(to);
  receiver.balance += amount;
  await receiver.save();
}

async function loadAccount(address: string): Promise<Account> {
  return (await Account.get(address)) ?? Account.create({ id: address, balance: 0n });
}
