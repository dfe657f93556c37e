import { startAnvil, type Anvil, type AnvilOptions } from '../../devchain/start-anvil.ts';
import type { Teardown } from './teardown.ts';

/** anvil for one test (file): stopped on teardown. */
export async function anvilForTest(t: Teardown, options: AnvilOptions = {}): Promise<Anvil> {
  const anvil = await startAnvil(options);
  t.teardown(() => anvil.stop());
  return anvil;
}
