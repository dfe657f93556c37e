// As in SubQuery's starters: the augmented @polkadot/api types (types only; idx provides an empty module at run time).
import "@polkadot/api-augment";

// Exports every handler the manifest names.
export * from "./mappings/mappingHandlers";
