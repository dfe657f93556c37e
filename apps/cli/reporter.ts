/** Where the CLI's commands tell the user what they did; the tests collect it instead. */
export interface Reporter {
  info(message: string): void;
  warn(message: string): void;
}

export function createConsoleReporter(out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Reporter {
  return {
    info: (message) => out.write(`${message}\n`),
    warn: (message) => err.write(`warning: ${message}\n`),
  };
}
