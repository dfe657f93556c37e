import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyProject } from './project-copies.ts';
import { idxCli } from './idx-programs.ts';
import type { Teardown } from './teardown.ts';

/**
 * A project over the ERC20 workload that uses what the starter does not: an enum, nullable fields,
 * Float, Boolean, Bytes, JSON, a list, a one-to-one `@derivedFrom`, updates, and removes (a
 * `Pending` per recipient, removed and made again as transfers at odd and even log indexes reach it).
 */
export const ZOO_SCHEMA = `
enum Kind {
  MINT
  TRANSFER
}

type Account @entity {
  id: ID!
  balance: BigInt!
  sentCount: Int!
  tags: [String!]
  sent: [Transfer] @derivedFrom(field: "from")
  received: [Transfer] @derivedFrom(field: "to")
  profile: Profile @derivedFrom(field: "account")
}

type Profile @entity {
  id: ID!
  account: Account!
  note: String
  meta: JSON
}

type Transfer @entity {
  id: ID!
  blockHeight: BigInt! @index
  logIndex: Int!
  kind: Kind!
  from: Account!
  to: Account!
  value: BigInt!
  big: Boolean!
  ratio: Float
  at: Date!
  memo: String
  data: Bytes!
}

type Pending @entity {
  id: ID!
  account: Account!
  since: Int!
}

type Post @entity @fullText(fields: ["title", "body"], language: "english") {
  id: ID!
  author: Account!
  title: String!
  body: String
  edits: Int!
}
`;

/** The words of the posts' text (no English stop words), for searches the tests can predict. */
export const POST_WORDS = ['fox', 'foxes', 'dog', 'dogs', 'quick', 'lazy', 'jumps', 'jumping', 'index', 'indexer', 'chain', 'chains', 'block'];

const MAPPING = `
import { Account, Kind, Pending, Post, Profile, Transfer } from "../types";
import type { TransferLog } from "../types/abi-interfaces/Erc20Abi";

const ZERO = "0x0000000000000000000000000000000000000000";

export async function handleTransfer(log: TransferLog): Promise<void> {
  const { from, to, value } = log.args;
  const amount = value.toBigInt();
  const n = log.logIndex;
  const transfer = Transfer.create({
    id: \`\${log.transactionHash}-\${n}\`,
    blockHeight: BigInt(log.blockNumber),
    logIndex: n,
    kind: from === ZERO ? Kind.MINT : Kind.TRANSFER,
    fromId: from,
    toId: to,
    value: amount,
    big: amount > 10n ** 21n,
    ratio: n % 4 === 0 ? undefined : n / 4,
    at: new Date(Number(log.block.timestamp) * 1000),
    memo: n % 3 === 0 ? undefined : (n % 2 === 0 ? "Even " : "odd_") + n + "%",
    data: log.transactionHash,
  });
  await transfer.save();
  const sender = await account(from, log.blockNumber);
  sender.balance -= amount;
  sender.sentCount += 1;
  await sender.save();
  const receiver = await account(to, log.blockNumber);
  receiver.balance += amount;
  await receiver.save();
  // a recipient is pending after a transfer at an even log index, and no more after an odd one
  if (n % 2 === 0) await Pending.create({ id: to, accountId: to, since: log.blockNumber }).save();
  else await Pending.remove(to);
  // twelve posts, rewritten by the transfers that reach them and now and then deleted
  const postId = "post-" + (n % 12);
  if (n % 11 === 10) {
    await Post.remove(postId);
    return;
  }
  const seed = log.blockNumber * 31 + n;
  const post = (await Post.get(postId)) ?? Post.create({ id: postId, authorId: from, title: "", edits: 0 });
  post.title = words(seed, 3);
  post.body = n % 5 === 0 ? undefined : words(seed + 7, 2 + (n % 4));
  post.edits += 1;
  await post.save();
}

const WORDS = ${JSON.stringify(POST_WORDS)};

function words(seed: number, k: number): string {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < k; i++) {
    x = (x * 75 + 74) % 65537;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(" ");
}

async function account(address: string, height: number): Promise<Account> {
  const found = await Account.get(address);
  if (found) return found;
  const tags = address === ZERO ? undefined : [address.slice(2, 3).toLowerCase(), height % 2 === 0 ? "even" : "odd"];
  await Profile.create({ id: "p-" + address, accountId: address, note: height % 2 === 0 ? undefined : "first seen at " + height, meta: { first: height, zero: address === ZERO } }).save();
  return Account.create({ id: address, balance: 0n, sentCount: 0, tags });
}
`;

/** The zoo project, generated and built in a copy of the built starter (removed on teardown). */
export async function buildZooProject(t: Teardown, starter: string): Promise<string> {
  const dir = await copyProject(t, starter);
  await writeFile(join(dir, 'schema.graphql'), ZOO_SCHEMA);
  await writeFile(join(dir, 'src', 'mappings', 'erc20.ts'), MAPPING);
  await writeFile(join(dir, 'src', 'mappings', 'blocks.ts'), 'export async function handleBlock(): Promise<void> {}\n');
  await idxCli(dir, 'codegen');
  await idxCli(dir, 'build');
  return dir;
}
