/**
 * A JSON ABI as the data source's asset holds it (an array of fragments), used to decode `args`.
 * Typed loosely here because the domain takes no ABI library; the sandbox checks it with viem.
 */
export type JsonAbi = readonly Record<string, unknown>[];
