import { Command } from 'commander';

/**
 * A commander program set up the way every idx program behaves: `--help` and `--version` as the
 * reference names them, errors thrown (the caller prints them and picks the exit code) instead of
 * commander exiting, suggestions for mistyped flags, and no stray arguments.
 */
export function createProgram(name: string, description: string, ctx: { version: string; write: (text: string) => void }): Command {
  return new Command(name)
    .description(description)
    .version(ctx.version, '--version', 'show the version')
    .helpOption('--help', 'show options')
    .exitOverride()
    .configureOutput({ writeOut: ctx.write, writeErr: () => undefined })
    .showSuggestionAfterError(true)
    .allowExcessArguments(false);
}
