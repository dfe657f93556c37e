import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { IdxError } from '../../domain/errors.ts';
import { BUILD_MODES, type BuildMode } from './build-mode.ts';
import { findPackage } from '../../infra/package/find-package.ts';
import { createConsoleReporter } from './reporter.ts';
import type { DevChainOptions } from './dev-chain.ts';
import { redactUrlsIn } from '../../infra/rpc/redact-url.ts';
import { positiveInt } from '../../infra/cli/option-values.ts';
import { cliFamilies, DEFAULT_CLI_FAMILY } from './families/registry.ts';

/**
 * The chain families, as help text lists them: the default first for what it describes alone
 * (the registry holds data only; a family's code is loaded when a command runs).
 */
const FAMILIES = Object.entries(cliFamilies).map(([name, family]) => ({ name, ...family }));
const DEFAULT = FAMILIES.find((f) => f.name === DEFAULT_CLI_FAMILY)!;
const OTHERS = FAMILIES.filter((f) => f !== DEFAULT);

const nonNegativeNumber = (v: string): number => {
  if (!/^\d+(\.\d+)?$/.test(v)) throw new InvalidArgumentError('expected a number of seconds, 0 or more.');
  return Number(v);
};

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** The `idx` program: build, codegen, init, dev-chain, test (docs/usage.md). */
export function createProgram(io: CliIo): Command {
  const reporter = createConsoleReporter(io.stdout, io.stderr);
  const program = new Command('idx')
    .description(
      `Build tool for idx projects (SubQuery ${FAMILIES.map((f) => f.title).join(' and ')} projects): init, codegen, build, mapping tests and a local dev chain`,
    )
    .version(findPackage().version, '-v, --version', 'show the version')
    .helpOption('-h, --help', 'show options')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();

  program
    .command('build')
    .description('Bundle src/index.ts (and the package.json "exports" entries) into the output folder')
    .option('-l, --location <folder>', 'local project folder', '.')
    .option('-o, --output <folder>', 'output folder (default: <location>/dist)')
    .addOption(new Option('--mode <mode>', 'build mode').choices(BUILD_MODES).default('production'))
    .helpOption('-h, --help', 'show options')
    .action(async (opts: { location: string; output?: string; mode: BuildMode }) => {
      // commands load their modules when run, so that --help and --version answer at once
      const { buildProject } = await import('./build-project.ts');
      await buildProject({ location: opts.location, output: opts.output, mode: opts.mode, reporter });
    });

  program
    .command('codegen')
    .description('Generate src/types (entity classes, ABI types, runtime types) from schema.graphql and the ABIs')
    .option('-l, --location <folder>', 'local project folder', '.')
    .option('-f, --file <manifest>', 'manifest file (default: project.ts, project.yaml or project.json in the folder)')
    .helpOption('-h, --help', 'show options')
    .action(async (opts: { location: string; file?: string }) => {
      const { codegen } = await import('./codegen.ts');
      await codegen({ location: opts.location, manifestFile: opts.file, reporter });
    });

  program
    .command('init')
    .description(
      `Create a starter project in a new folder: ${[DEFAULT.starter.about, ...OTHERS.map((f) => `or with --network ${f.name} ${f.starter.about}`)].join(', ')}`,
    )
    .argument('<name>', 'name of the project and its folder')
    .option('--network <family>', `the chain family of the starter: ${FAMILIES.map((f) => f.name).join(' or ')}`, DEFAULT.name)
    .helpOption('-h, --help', 'show options')
    .action(async (name: string, opts: { network: string }) => {
      const { initProject } = await import('./init-project.ts');
      await initProject({ name, network: opts.network, reporter });
    });

  program
    .command('dev-chain')
    .summary(
      `Start a local chain with what the starter project indexes on it (${[DEFAULT.devChain.tool, ...OTHERS.map((f) => `or ${f.devChain.tool} for ${f.title}`)].join(', ')})`,
    )
    .description(
      `Start a local chain for the project in this folder, with what its starter indexes on it (${FAMILIES.map((f) => f.devChain.about).join('; ')}), every block final at once`,
    )
    .option('-l, --location <folder>', 'the project folder: its manifest gives the chain family and the port', '.')
    .addOption(new Option('--network <family>', `the chain family (default: the project's, else ${DEFAULT.name})`).choices(FAMILIES.map((f) => f.name)))
    .option('--host <address>', 'address to listen on (0.0.0.0: every interface)', '127.0.0.1')
    .addOption(
      new Option(
        '-p, --port <port>',
        `port to listen on (default: the port of the project's network.endpoint, else ${FAMILIES.map((f) => `${f.devChain.port} for ${f.name}`).join(' and ')})`,
      ).argParser(positiveInt),
    )
    .addOption(new Option('--block-time <seconds>', 'seconds between the blocks made after the first ones (0: none)').argParser(nonNegativeNumber).default(3))
    .option('-d, --detach', 'run in the background: return once the chain is ready (its log is in the temporary folder)', false)
    .option('--stop', 'stop the chains started with --detach (only the one on --port, when given)', false)
    .addOption(new Option('--ready-file <path>').hideHelp())
    .helpOption('-h, --help', 'show options')
    .action(async (opts: Omit<DevChainOptions, 'reporter'>) => {
      const { devChain } = await import('./dev-chain.ts');
      await devChain({ ...opts, reporter });
    });

  program
    .command('test')
    .description("Run the project's mapping tests (src/test/*.test.ts, built by idx build): the same as idx-node test")
    .argument('[args...]', "idx-node test's arguments, passed on unchanged (e.g. -f . --test-filter transfer)")
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption('-h, --help', 'show this help')
    .addHelpText('after', "\nThe options are idx-node's: see idx-node test --help (and docs/testing.md).")
    .action(async (args: string[]) => {
      const { runIdxNodeTest } = await import('./test-command.ts');
      const code = await runIdxNodeTest(args);
      // idx-node has printed what went wrong: its exit code becomes idx's, as a command's exit code does
      if (code !== 0) throw new CommanderError(code, 'idx.test', `idx-node test exited with code ${code}`);
    });

  // subcommands inherit neither exitOverride nor output settings from their parent
  for (const cmd of program.commands) {
    cmd
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
      .showHelpAfterError(`(run idx ${cmd.name()} --help for usage)`);
  }
  return program;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode; // commander (or idx-node, for idx test) has printed its message
    if (err instanceof IdxError) {
      // a manifest problem may name an endpoint by its URL: printed as the node's logger prints URLs
      io.stderr.write(`error: ${redactUrlsIn(err.message)}\n`);
      return 1;
    }
    io.stderr.write(`error: ${redactUrlsIn((err as Error)?.stack ?? String(err))}\n(this looks like a bug in idx; please report it)\n`);
    return 2;
  }
}

/** When run as the program (by bin/idx.js), not when imported by tests. */
export async function main(): Promise<void> {
  process.exitCode = await runCli(process.argv.slice(2));
}
