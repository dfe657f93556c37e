#!/usr/bin/env node
// The demo's chain alone (anvil with the ERC20 workload), for docker/compose.yml. Not a published command.
import { load } from './launch.js';

const { main } = await load('devchain/demo/serve-chain');
await main(process.argv.slice(2));
