// `npm run test:install` (not part of `npm test`: it packs idx, installs the package from the registry's
// packages, and runs two chains): a new user's first hour on the package as users get it. It packs this
// checkout (`npm pack`), installs the tarball with `npm install -g --prefix <tmp>` as the README says,
// prints what npm warned about, then runs test/readme-first-hour.test.ts with the installed programs on
// the PATH (IDX_INSTALLED_BIN), where the starters' `npm install` runs for real.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(import.meta.url), '../../..');

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; echo?: boolean } = {}) {
  return new Promise<{ code: number | null; output: string; seconds: number }>((done) => {
    const began = Date.now();
    const child = spawn(command, args, { cwd: options.cwd ?? REPO, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      if (options.echo) process.stdout.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => done({ code, output, seconds: Math.round((Date.now() - began) / 1000) }));
  });
}

const work = await mkdtemp(join(tmpdir(), 'idx-install-'));
const say = (line: string) => process.stdout.write(`[test:install] ${line}\n`);
try {
  const pack = await run('npm', ['pack', '--pack-destination', work]);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.output}`);
  const tarball = join(
    work,
    (await readdir(work)).find((f) => f.endsWith('.tgz'))!,
  );
  say(`npm pack: ${tarball} (${pack.seconds} s)`);

  const prefix = join(work, 'prefix');
  // idx-stack's own install script compiles isolated-vm; npm matches a local file's approval by its path
  const install = await run('npm', ['install', '-g', '--prefix', prefix, `--allow-scripts=file:${tarball},@swc/core,esbuild`, tarball], { cwd: work });
  const warnings = install.output.split('\n').filter((line) => /^npm warn/.test(line));
  say(`npm install -g ${tarball}: exit ${install.code}, ${install.seconds} s, ${warnings.length} warning lines`);
  for (const line of warnings) say(`  ${line}`);
  if (install.code !== 0) throw new Error(`npm install -g failed:\n${install.output}`);

  const test = await run('npx', ['tap', 'test/readme-first-hour.test.ts'], { env: { ...process.env, IDX_INSTALLED_BIN: join(prefix, 'bin') }, echo: true });
  say(`the README's lines on the installed package: ${test.code === 0 ? 'passed' : 'FAILED'} (${test.seconds} s)`);
  process.exitCode = test.code ?? 1;
} finally {
  await rm(work, { recursive: true, force: true });
}
