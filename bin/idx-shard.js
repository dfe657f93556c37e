#!/usr/bin/env node
// `idx-shard`: the sharded Ethereum data node.
import { load } from './launch.js';

const { main } = await load('apps/shard/main');
process.exit(await main(process.argv.slice(2)));
