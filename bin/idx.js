#!/usr/bin/env -S node --no-node-snapshot
// The `idx` command (build, codegen, init). --no-node-snapshot: isolated-vm needs it on Node 20,
// and every idx program runs with it so they behave alike.
import { load } from './launch.js';

const { main } = await load('apps/cli/main');
await main();
