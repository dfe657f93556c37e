/** One read statement of the query service: its text, and the parameters `$1`… of it. */
export interface ReadStatement {
  text: string;
  values: unknown[];
}
