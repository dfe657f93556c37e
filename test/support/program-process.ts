import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, programEnv } from './idx-programs.ts';

/** A compiled idx program run as a user runs it, with its output kept to wait on. */
export interface ProgramProcess {
  child: ChildProcess;
  output: () => string;
  /** resolves with the first match of `re` in the output */
  waitFor(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

export function startProgram(bin: string, args: readonly string[], env: Record<string, string | undefined>): ProgramProcess {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN(bin), ...args], { env: programEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    output += d;
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    waitFor(re, ms = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(output);
          if (!m) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${bin} did not print ${re} within ${ms} ms; output:\n${output}`));
        }, ms);
        waiters.add(check);
        child.once('exit', () => setTimeout(check, 10));
        check();
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    exited,
  };
}
