#!/usr/bin/env -S node --no-node-snapshot
// `npm start`: the demo (a local chain, the starter project indexed into PGlite). Not a published command.
import { load } from './launch.js';

const { main } = await load('devchain/demo/main');
await main(process.argv.slice(2));
