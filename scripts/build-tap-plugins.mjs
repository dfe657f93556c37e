// Builds tap's test class (node_modules/@tapjs/test) for the .taprc plugin list when it was built for another
// list, as right after `npm ci`. tap's runner does that build itself, but only after it has read the installed
// class, so every test process of that first run still loads the unwanted plugins' module hooks: @tapjs/typescript's
// ts-node loader (about 3 CPU-seconds a test file, on top of tsx) and @tapjs/mock's (a round trip to the main
// thread for every module). Run by `npm test` before the checks, whose typecheck reads the class's types.
import { spawnSync } from 'node:child_process';
import { TapConfig } from '@tapjs/config';
import { signature } from '@tapjs/test';

const config = await TapConfig.load();
if (config.pluginSignature !== signature) {
  process.stdout.write('building tap for the .taprc plugins\n');
  const built = spawnSync('npx', ['tap', 'build'], { stdio: 'inherit' });
  process.exit(built.status ?? 1);
}
