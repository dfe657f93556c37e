import type { EthereumBlock } from "@subql/types-ethereum";
import { StarterEntity } from "../types";

/** Runs on every fifth block (the modulo filter in project.ts). */
export async function handleBlock(block: EthereumBlock): Promise<void> {
  const entity = StarterEntity.create({ id: block.hash, blockHeight: BigInt(block.number) });
  await entity.save();
}
