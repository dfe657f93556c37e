/** A place in code that names a chain family: its file, its line and the word. */
export interface FamilyName {
  file: string;
  line: number;
  text: string;
}

/** The names of the families' folders: code under a folder of one of these names is that family's own. */
export const FAMILY_FOLDERS: readonly string[];
/** Files allowed to name every family (the registries), each with why. */
export const ALLOWED: ReadonlyMap<string, string>;
/** Folders allowed to name a family, each with why. */
export const ALLOWED_FOLDERS: ReadonlyMap<string, string>;

/** The family words one file's code holds. */
export function familyNamesIn(file: string, root?: string): FamilyName[];

/** Every place outside the families' folders and the registries that names a family. */
export function familyNames(folders?: readonly string[], root?: string): FamilyName[];
