import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { idxCli } from '../../test/support/idx-cli.ts';
import { startChopsticksProcess } from '../../devchain/start-chopsticks-process.ts';

// The chains themselves run in test/readme-first-hour.test.ts (the READMEs' lines); here what answers at once.

t.test('idx --help names dev-chain; idx dev-chain --help gives every option', async (t) => {
  const help = await idxCli(['--help']);
  t.match(help.stdout, /dev-chain \[options\]\s+Start a local chain/);
  const own = await idxCli(['dev-chain', '--help']);
  t.equal(own.code, 0);
  const text = own.stdout.replace(/\s+/g, ' ');
  for (const option of [
    '-l, --location <folder>',
    '--network <family>',
    '(choices: "ethereum", "substrate")',
    '--host <address>',
    '-p, --port <port>',
    '--block-time <seconds>',
    '(default: 3)',
    '-d, --detach',
    '--stop',
  ])
    t.ok(text.includes(option), option);
  t.notMatch(text, /ready-file/, 'the option --detach gives its own process is not offered');
});

t.test('bad values are refused naming the flag', async (t) => {
  const time = await idxCli(['dev-chain', '--block-time', '-1']);
  t.equal(time.code, 1);
  t.match(time.stderr, /option '--block-time <seconds>' argument '-1' is invalid\. expected a number of seconds, 0 or more\./);
  const network = await idxCli(['dev-chain', '--network', 'solana']);
  t.equal(network.code, 1);
  t.match(network.stderr, /Allowed choices are ethereum, substrate/);
});

t.test('--stop with no chain started says so', async (t) => {
  const stop = await idxCli(['dev-chain', '--stop', '--port', '1']);
  t.same(stop, { code: 0, stdout: 'no dev chain started with --detach is running on port 1\n', stderr: '' });
});

t.test('without chopsticks installed, the Substrate chain names the packages and npm install', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-no-chopsticks-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await t.rejects(startChopsticksProcess({ from: [dir], port: 1 }), {
    code: 'CHOPSTICKS_NOT_INSTALLED',
    message:
      /run `npm install` in a project made by `idx init --network substrate`.*@acala-network\/chopsticks@1\.5\.1 @substrate\/connect-known-chains@1\.10\.3/,
  });
});

t.test('--stop kills only a chain this user started: a chain.json planted in the shared temp folder is not obeyed', async (t) => {
  const temp = await mkdtemp(join(tmpdir(), 'idx-shared-temp-'));
  const given = process.env.TMPDIR;
  process.env.TMPDIR = temp;
  // a process of the user's that someone would like killed
  const victim = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  t.teardown(async () => {
    victim.kill('SIGKILL');
    if (given === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = given;
    await rm(temp, { recursive: true, force: true });
  });
  // where the chain's state was kept in the temp folder, before it had a folder of the user's own
  await mkdir(join(temp, 'idx-dev-chain', '7'), { recursive: true });
  await writeFile(join(temp, 'idx-dev-chain', '7', 'chain.json'), JSON.stringify({ pid: victim.pid, network: 'ethereum', url: 'http://127.0.0.1:7', log: '' }));
  const stop = await idxCli(['dev-chain', '--stop', '--port', '7']);
  t.same(stop, { code: 0, stdout: 'no dev chain started with --detach is running on port 7\n', stderr: '' });
  t.equal(victim.exitCode, null, 'the process it named still runs');
  t.equal(victim.signalCode, null);
});
