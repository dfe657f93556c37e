import { subqlTest } from "@subql/testing";
import { Account, Transfer } from "../types";

// Block 5 of `idx dev-chain`, as recorded in src/test/__recordings__/transfers.json:
// `npm test` replays it, so the test needs no chain. Run `idx dev-chain` and
// `npm run test:record` to record it again (see README.md: a new dev chain has
// new block times, so `timestamp` below changes with it).
const SENDER = "0x434A26F4d91bB703C560Cdc1476dF9dcB8123D79";

subqlTest(
  "handleTransfer stores the transfer and moves the balances",
  5, // the block the handler runs on
  [Account.create({ id: SENDER, balance: BigInt("1000000000000000000000") })], // stored before it runs
  [
    // expected after it ran on the block's 20 transfers
    Transfer.create({
      id: "0x24b9948db2db1b1bae90b0236b6942c615f751e81cfe0436af50ac81830b7cce-0",
      blockHeight: BigInt(5),
      timestamp: new Date(1795845843 * 1000),
      fromId: SENDER,
      toId: "0x6bA235D202511447F850645166f5d0204f648A25",
      value: BigInt("893975000000000000"),
      transactionHash: "0x24b9948db2db1b1bae90b0236b6942c615f751e81cfe0436af50ac81830b7cce",
      contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    }),
    // 1000 tokens less the 1.763985 it sent in the block
    Account.create({ id: SENDER, balance: BigInt("998236015000000000000") }),
  ],
  "handleTransfer", // the handler, as project.ts names it
);
