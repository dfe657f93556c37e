// The node calls the handlers that this file exports, by the names project.ts gives.
export * from "./mappings/erc20";
export * from "./mappings/blocks";
