// Imported into every test process (.taprc node-arg). tap tracks the processes of a run by adding
// its module hooks to the NODE_OPTIONS of every child (again at each spawn, whatever env the spawn
// was given); a test's children are the programs under test, and the hooks more than double their
// start-up (loading idx-node: 0.8 → 2 CPU-s). A spawn listener registered after tap's removes them,
// so that children start as users start them. Plain JavaScript: worker threads get the same flags,
// and tsx's loader does not reach them.
import processOnSpawn from 'process-on-spawn';

const TAP_HOOKS = /(?:^|\s)"?--(?:import|loader|experimental-loader)[=\s]"?[^\s"]*@tapjs[/\\]processinfo[^\s"]*"?/g;

processOnSpawn.addListener((spawn) => {
  const options = spawn.env.NODE_OPTIONS;
  if (options === undefined) return;
  const rest = options.replace(TAP_HOOKS, '').trim();
  const env = { ...spawn.env };
  if (rest === '') delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = rest;
  spawn.env = env;
});
