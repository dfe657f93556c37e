import type { ProcessorDataSource } from '../../../../../domain/chains/substrate/custom-data-source.ts';
import type { Handler, IsolateFamilyDefinition } from '../../isolate-family.ts';
import type { CustomSourcesInstall } from '../../wire.ts';
import { checkCustomSource, createProcessorRunner, loadProcessors } from './ds-processors.ts';
import { buildSubstrateObjects, createSubstrateApi, createSubstrateRuntimes, type SubstrateLib } from './substrate-objects.ts';
import { SUBSTRATE_CALL, type SubstrateBlockPayload, type SubstrateWireCall } from './substrate-wire.ts';

type Block = { hash: string; height: number; specVersion: number };

/**
 * Substrate mappings inside: blocks, extrinsics and events decoded with `@polkadot/types` (the
 * family's library bundle) and the runtime the host hands over once per spec version; `api` reads
 * at the block running; custom data sources' processors run the calls that go through them.
 */
export const substrateIsolate: IsolateFamilyDefinition = {
  install({ call, chainTypes, height, library }) {
    const lib = library as SubstrateLib;
    // the block running, for `api` reads at it
    const at: { block: Block | undefined } = { block: undefined };
    const runtimes = createSubstrateRuntimes(lib, chainTypes, async (v) => (await call('substrateRuntime', [v])) as never);
    const api = createSubstrateApi(
      lib,
      runtimes,
      () => at.block,
      (method, params) => call('request', [method, params]),
    );
    let runThroughProcessor: ReturnType<typeof createProcessorRunner> | undefined;
    return {
      api,
      unsafeApi: () => api,
      async prepare(specVersion) {
        await runtimes.get(specVersion);
        runtimes.expanded(specVersion);
      },
      loadCustom(custom, require, currentApi) {
        const { processors, assets, sources } = custom as CustomSourcesInstall<ProcessorDataSource>;
        const { plugins, shapes } = loadProcessors(processors, require);
        runThroughProcessor = createProcessorRunner(plugins, assets, currentApi);
        const problems = sources.flatMap(({ path, ds }) => checkCustomSource(plugins, path, ds, assets));
        return { processors: shapes, customProblems: problems };
      },
      async enterBlock(wire) {
        const payload = (wire as SubstrateBlockPayload).substrate;
        const objects = await buildSubstrateObjects(lib, runtimes, payload);
        at.block = { hash: payload.hash, height: height(), specVersion: payload.specVersion };
        return {
          argOf: (_call: number, c: SubstrateWireCall) =>
            c[1] === SUBSTRATE_CALL.extrinsic ? objects.extrinsic(c[2]) : c[1] === SUBSTRATE_CALL.event ? objects.event(c[2]) : objects.block,
          invoke(c: SubstrateWireCall, arg: unknown, handler: Handler) {
            const custom = c[5];
            if (custom === undefined) return handler(arg);
            return runThroughProcessor!(payload.customSources![custom[0]]!, custom[1], arg, handler);
          },
          done() {
            at.block = undefined;
          },
        };
      },
    };
  },
};
