// idx's install script: compiles the isolated-vm that package.json installs (this folder's patched
// 5.0.4, which has no install script of its own) for the running Node.js. A build already made for
// this Node.js ABI, platform and package version is kept, so a repeated `npm install` costs nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageJson = createRequire(import.meta.url).resolve('isolated-vm/package.json');
const folder = dirname(packageJson);
const { version } = JSON.parse(readFileSync(packageJson, 'utf8'));
const stampFile = join(folder, 'out', 'idx-build.json');
const stamp = JSON.stringify({ version, abi: process.versions.modules, platform: process.platform, arch: process.arch });

function built() {
  return existsSync(join(folder, 'out', 'isolated_vm.node')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp;
}

// npm gives its own node-gyp to install scripts (npm_config_node_gyp); run by hand, the one on PATH.
// Its output (a line per compiled file) is shown only when it fails.
function nodeGyp(args) {
  const script = process.env.npm_config_node_gyp;
  const [command, argv] = script ? [process.execPath, [script, ...args]] : ['node-gyp', args];
  return spawnSync(command, argv, { cwd: folder, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

if (!built()) {
  process.stdout.write(`idx: compiling isolated-vm ${version}, the sandbox the mappings run in (about a minute)\n`);
  const build = nodeGyp(['rebuild', '--release', '-j', 'max']);
  if (build.status !== 0) {
    const why = build.error ? `${build.error.message}` : `node-gyp exited with ${build.status ?? build.signal}`;
    process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}`.split('\n').slice(-60).join('\n') + '\n');
    process.stderr.write(
      `idx: compiling isolated-vm ${version} (the sandbox the mappings run in) in ${folder} failed: ${why}.\n` +
        'It needs python3, make and a C++ compiler (Debian and Ubuntu: apt-get install python3 make g++); ' +
        'install them and run `npm install` again.\n',
    );
    process.exit(1);
  }
  nodeGyp(['clean']);
  writeFileSync(stampFile, stamp);
}

// Then what idx's first run would otherwise make (bin/warm-caches.js), where idx's files are: a Docker
// build runs this script with only package.json and this folder copied.
const warm = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'warm-caches.js');
if (existsSync(warm)) spawnSync(process.execPath, ['--no-node-snapshot', warm], { stdio: 'inherit' });
