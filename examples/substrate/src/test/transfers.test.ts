import { subqlTest } from "@subql/testing";
import { Account, Transfer } from "../types";

// Block 2 of `idx dev-chain`, as recorded in src/test/__recordings__/transfers.json:
// `npm test` replays it, so the test needs no chain. Run `idx dev-chain` and
// `npm run test:record` to record it again (see README.md: a new dev chain has
// new block times, so `date` below changes with it).
const ALICE = "HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F";
const BOB = "FoQJpPyadYccjavVdTWxpxU7rUEaYhfLCPwXgkfD6Zat9QP";

subqlTest(
  "handleTransfer stores each transfer and what each account received",
  2, // the block the handler runs on
  [Account.create({ id: BOB, sent: BigInt(0), received: BigInt(5) })], // stored before it runs
  [
    // Alice's transferKeepAlive to Bob, the block's event 3
    Transfer.create({
      id: "2-3",
      blockNumber: 2,
      date: new Date(1795845910337),
      fromId: ALICE,
      toId: BOB,
      amount: BigInt(10000000000),
      extrinsicHash: "0x621ff23d2ac081ac3061d88f2b76b3674fbbc54361dd0c6a4360856f88e37fe5",
    }),
    // Bob got 10000000000 from that transfer and 100000000 from a batchAll in the same block
    Account.create({ id: BOB, sent: BigInt(0), received: BigInt(10100000005) }),
  ],
  "handleTransfer", // the handler, as project.yaml names it
);
