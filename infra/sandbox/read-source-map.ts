import { SourceMap } from 'node:module';
import { SandboxError } from './sandbox-error.ts';

/** The project bundle's source map (JSON text or parsed), to point errors at the project's sources. */
export function readSourceMap(map: string | object | undefined, fileName: string): SourceMap | undefined {
  if (map === undefined) return undefined;
  try {
    return new SourceMap((typeof map === 'string' ? JSON.parse(map) : map) as ConstructorParameters<typeof SourceMap>[0]);
  } catch (err) {
    throw new SandboxError('SANDBOX_LOAD_FAILED', `the source map of ${fileName} is not valid JSON source map: ${(err as Error).message}`, { cause: err });
  }
}
