/** A port to start from; the node moves to the next free one when it is taken. */
export function freePortGuess(): number {
  return 20000 + Math.floor(Math.random() * 20000);
}

/** The port a node says it serves /meta on: the one asked for, or the next free one when that was busy. */
export function servedPort(output: string): number | undefined {
  const port = /serving \/health.* on http:\/\/localhost:(\d+)/.exec(output)?.[1];
  return port === undefined ? undefined : Number(port);
}
