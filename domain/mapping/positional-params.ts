import type { AbiParameter } from 'viem';

/**
 * The parameters without names, so that viem gives every tuple as an array: with names it gives an
 * object, where two components of one name keep only the last value (ethers keeps both, by position).
 */
export function positional(params: readonly AbiParameter[]): AbiParameter[] {
  return params.map((p) => {
    const components = (p as { components?: readonly AbiParameter[] }).components;
    return { ...p, name: '', ...(components && { components: positional(components) }) } as AbiParameter;
  });
}
