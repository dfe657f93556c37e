import type { CliFamily } from '../cli-family.ts';

/** The Substrate family in `idx`: its starter and chopsticks; its projects' src/types need nothing of their own. */
export const substrateFamily: CliFamily = {
  title: 'Substrate',
  starter: {
    folder: 'substrate',
    name: 'substrate-starter',
    about: 'a Substrate one',
    setup: ['npm install              # chopsticks, which runs the local chain'],
  },
  devChain: {
    port: 8000,
    tool: 'chopsticks',
    about: 'Substrate: chopsticks, transfers and batch calls',
    load: async () => (await import('./substrate-dev-chain.ts')).substrateDevChain,
  },
};
