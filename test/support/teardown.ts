/** The part of tap's `t` we need, so helpers close what they open. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}
