// Exports every handler the manifest names.
export * from "./mappings/mappingHandlers";
