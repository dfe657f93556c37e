import t from 'tap';
import type { SubstrateBlock } from '../../../../domain/chains/substrate/substrate-block.ts';
import { blockRunFailure } from '../../block-failures.ts';
import { WriteFailed } from '../../create-host-bridge.ts';
import { RuntimeDied } from '../../mapping-runtime.ts';
import { SandboxError } from '../../sandbox-error.ts';
import { substratePayload } from './substrate-payload.ts';

const block: SubstrateBlock = {
  height: 5,
  hash: '0xb5',
  parentHash: '0xb4',
  timestamp: 1700,
  specVersion: 9,
  extrinsics: [{ section: 'balances', method: 'transfer', isSigned: true, success: false }],
  events: [
    { section: 'system', method: 'ExtrinsicFailed', extrinsic: 0 },
    { section: 'x', method: 'y', extrinsic: 'finalization' },
  ],
  raw: { signedBlock: { block: {} }, events: '0x00', eventOffsets: [0, 1, 2], timestampMs: 1_700_000, specVersion: 9 },
};

t.test("a Substrate block's payload: calls by kind and index, the raw parts, the custom sources called through", async (t) => {
  const ds = { kind: 'substrate/Custom' } as never;
  const payload = substratePayload(
    block,
    [
      { handler: 'onBlock', kind: 'block' },
      { handler: 'onCall', kind: 'call', index: 0 },
      { handler: 'onEvent', kind: 'event', index: 1, custom: { source: 2, position: 0, ds } },
    ],
    true,
  );
  t.same(payload.calls, [
    ['onBlock', 0, 0],
    ['onCall', 3, 0],
    ['onEvent', 4, 1, undefined, undefined, [2, 0]],
  ]);
  t.same(
    { ...payload, calls: undefined },
    {
      height: 5,
      fresh: true,
      block: { hash: '0xb5', number: 5, timestamp: 1700 },
      transactions: null,
      logs: [],
      logsComplete: true,
      calls: undefined,
      substrate: {
        signedBlock: { block: {} },
        events: '0x00',
        eventOffsets: [0, 1, 2],
        eventExtrinsics: [0, -1],
        extrinsicSuccess: [false],
        timestampMs: 1_700_000,
        specVersion: 9,
        hash: '0xb5',
        customSources: { 2: ds },
      },
    },
  );
  t.throws(() => substratePayload(block, [{ handler: 'onEvent', kind: 'event', index: 2 }], false), {
    code: 'INVALID_HANDLER_CALL',
    message: 'call 0 (onEvent) refers to event 2 of block 5, which has 2',
  });
});

t.test("a block's failure, named for the handler", async (t) => {
  const at = { height: 7, handlerOfCall: (i: number) => ['a', 'b'][i] ?? '(unknown)', running: () => 'b', memoryLimitMb: 64 };
  t.match(blockRunFailure(new WriteFailed(0, 0, 'too big', { cause: undefined }), at), {
    code: 'HANDLER_FAILED',
    message: 'Handler a failed at block 7: too big',
  });
  t.match(blockRunFailure(new RuntimeDied('memory-limit', 'oom'), at), {
    code: 'SANDBOX_MEMORY_LIMIT',
    message: /^Handler b ran out of memory at block 7: the sandbox is limited to 64 MB/,
  });
  t.match(blockRunFailure(new RuntimeDied('crashed', 'gone'), at), { code: 'SANDBOX_CRASHED', message: 'the sandbox stopped while b ran at block 7: gone' });
  t.match(blockRunFailure(new RangeError('no'), at), { code: 'HANDLER_FAILED', message: 'Handler b failed at block 7: RangeError: no' });
  t.match(blockRunFailure(42, at), { message: 'Handler b failed at block 7: a non-Error value was thrown: 42' });
  const own = new SandboxError('SANDBOX_TIMEOUT', 'slow', {});
  t.equal(blockRunFailure(own, at), own, 'a SandboxError is already named');
});
