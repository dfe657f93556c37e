import { redactUrlsIn } from '../../infra/rpc/redact-url.ts';

/** Where the CLI's commands tell the user what they did; the tests collect it instead. */
export interface Reporter {
  info(message: string): void;
  warn(message: string): void;
}

export function createConsoleReporter(out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Reporter {
  return {
    // endpoint URLs in messages (a manifest warning naming one) are printed redacted, as idx-node's logger prints them
    info: (message) => out.write(`${redactUrlsIn(message)}\n`),
    warn: (message) => err.write(`warning: ${redactUrlsIn(message)}\n`),
  };
}
