#!/usr/bin/env -S node --no-node-snapshot
// `idx-node`: indexes a chain with a project's mappings (--no-node-snapshot: isolated-vm needs it on Node 20).
import { exitWhenIdle, load } from './launch.js';

const { main } = await load('apps/node/main');
exitWhenIdle(await main(process.argv.slice(2), 'base'));
