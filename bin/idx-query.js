#!/usr/bin/env node
// `idx-query`: serves the indexed data over GraphQL.
import { load } from './launch.js';

const { main } = await load('apps/query/main');
process.exit(await main(process.argv.slice(2)));
