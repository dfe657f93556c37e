/**
 * Ends a test process that loaded isolated-vm with process.exit, as the bins do, once everything else
 * (tests, teardowns, output) is finished: when Node tears its environment down normally, isolated-vm's
 * weak callbacks can hit `Assertion 'environment != nullptr'` and abort a run whose tests all passed.
 * process.exit() keeps the exit code tap sets.
 */
export function exitWhenDone(): void {
  process.once('beforeExit', () => process.exit());
}
