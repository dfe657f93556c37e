/** A function in apps/, domain/ or infra/: where it starts, how many lines it spans, its name. */
export interface LongFunction {
  file: string;
  line: number;
  lines: number;
  name: string;
}

/** Every function in one file. */
export function functionsIn(file: string, root?: string): LongFunction[];

/** The functions in apps/, domain/ and infra/ longer than `minLines` lines (default 150), longest first. */
export function longFunctions(minLines?: number, root?: string): LongFunction[];
