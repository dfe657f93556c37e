#!/usr/bin/env node
// `idx-shard`: the sharded Ethereum data node.
import { exitWhenIdle, load } from './launch.js';

const { main } = await load('apps/shard/main');
exitWhenIdle(await main(process.argv.slice(2)));
