import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import type { Plugin, rollup } from 'rollup';

// Imported only by bundle-prelude.ts, in its child process: rollup and its plugins stay out of the indexer.
// Loaded through require: the typings of these two plugins do not compile under this repository's settings.
const requireCjs = createRequire(import.meta.url);
const commonjs = requireCjs('@rollup/plugin-commonjs') as (options?: object) => Plugin;
const swc = (requireCjs('@rollup/plugin-swc') as { swc: (options: object) => Plugin }).swc;

/**
 * `@polkadot/types` for the sandbox. Its hashing falls back to JavaScript (@noble/hashes) when the
 * WebAssembly crypto is not ready, and the sandbox has no WebAssembly: the wasm package is left out.
 * `encodeAddress` is the memoised one (lib/memo-encode-address.ts), and CODEC_PATCHES apply.
 */
export function libraryInput(ext: string): Parameters<typeof rollup>[0] {
  const dir = dirname(fileURLToPath(import.meta.url));
  const stub = '\0idx-wasm-crypto-stub';
  return {
    input: `${dir}/lib/index${ext}`,
    plugins: [
      {
        name: 'idx-polkadot-for-the-sandbox',
        resolveId: (source, importer) => {
          if (source === '@polkadot/wasm-crypto') return stub;
          // the package's own encodeAddress, as every other module of it imports it, is the memoised one
          if (source === './encode.js' && importer !== undefined && /@polkadot[\\/]util-crypto[\\/]address[\\/]index\.js$/.test(importer))
            return `${dir}/lib/memo-encode-address${ext}`;
          return null;
        },
        load: (id) =>
          id === stub
            ? 'export const isReady = () => false; export const waitReady = () => Promise.resolve(false); export const packageInfo = { name: "@polkadot/wasm-crypto", path: "", type: "esm", version: "none" };\n' +
              'export const bridge = {}; export function __unavailable() { throw new Error("WebAssembly crypto is not available in the sandbox"); }\n' +
              WASM_CRYPTO_EXPORTS.map((n) => `export const ${n} = __unavailable;`).join('\n')
            : null,
        transform(code, id) {
          const patch = CODEC_PATCHES.find((p) => p.file.test(id));
          if (patch === undefined) return null;
          let made = code;
          for (const [from, to] of patch.replace) {
            if (!made.includes(from)) throw new Error(`${id}: "${from}", which this bundle memoises, is not there (a new @polkadot/types?)`);
            made = made.replace(from, to);
          }
          return `${made}\n${patch.append}`;
        },
      },
      nodeResolve({ preferBuiltins: false, browser: true }),
      commonjs(),
      swc({
        include: [`${dir}/lib/**`, resolve(dir, `../../../chains/substrate/create-runtime-registry${ext}`)],
        swc: { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } },
      }),
    ],
    onwarn(warning, warn) {
      if (!['CIRCULAR_DEPENDENCY', 'THIS_IS_UNDEFINED', 'INVALID_ANNOTATION'].includes(warning.code ?? '')) warn(warning);
    },
  };
}

/**
 * `@polkadot/types` redoes per decoded value what depends only on the runtime's metadata: a call made a
 * new Struct class for its arguments (and worked out their types anew), an event's data its field
 * types, type definitions and names. The sandbox's copy does it once per call or event of the runtime.
 */
const CODEC_PATCHES: { file: RegExp; replace: [string, string][]; append: string }[] = [
  {
    file: /@polkadot[\\/]types[\\/]generic[\\/]Call\.js$/,
    replace: [['args: Struct.with(decoded.argsDef)', 'args: argsStructOf(decoded)']],
    append: `const argsStructs = new WeakMap();
function argsStructOf(decoded) {
  let made = argsStructs.get(decoded.meta);
  if (made === undefined) argsStructs.set(decoded.meta, (made = Struct.with(decoded.argsDef)));
  return made;
}`,
  },
  {
    file: /@polkadot[\\/]types[\\/]generic[\\/]Event\.js$/,
    replace: [
      ['super(registry, fields.map(({ type }) => registry.createLookupType(type)), value);', 'super(registry, eventDataOf(registry, meta).types, value);'],
      ['this.#typeDef = fields.map(({ type }) => registry.lookup.getTypeDef(type));', 'this.#typeDef = eventDataOf(registry, meta).typeDef;'],
      [
        `const names = fields
            .map(({ name }) => registry.lookup.sanitizeField(name)[0])
            .filter((n) => !!n);`,
        'const names = eventDataOf(registry, meta).names;',
      ],
    ],
    append: `const eventDatas = new WeakMap();
function eventDataOf(registry, meta) {
  let made = meta === undefined ? undefined : eventDatas.get(meta);
  if (made === undefined) {
    const fields = meta?.fields || [];
    made = {
      types: fields.map(({ type }) => registry.createLookupType(type)),
      typeDef: fields.map(({ type }) => registry.lookup.getTypeDef(type)),
      names: fields.map(({ name }) => registry.lookup.sanitizeField(name)[0]).filter((n) => !!n),
    };
    if (meta !== undefined) eventDatas.set(meta, made);
  }
  return made;
}`,
  },
];

// What @polkadot/util-crypto imports from @polkadot/wasm-crypto; only called once `isReady()` says so.
const WASM_CRYPTO_EXPORTS = [
  'bip39Generate',
  'bip39ToEntropy',
  'bip39ToMiniSecret',
  'bip39ToSeed',
  'bip39Validate',
  'ed25519KeypairFromSeed',
  'ed25519Sign',
  'ed25519Verify',
  'blake2b',
  'hmacSha256',
  'hmacSha512',
  'keccak256',
  'keccak512',
  'pbkdf2',
  'scrypt',
  'secp256k1FromSeed',
  'secp256k1Compress',
  'secp256k1Expand',
  'secp256k1Recover',
  'secp256k1Sign',
  'sha256',
  'sha512',
  'sr25519KeypairFromSeed',
  'sr25519Sign',
  'sr25519Verify',
  'sr25519Agree',
  'sr25519DeriveKeypairHard',
  'sr25519DeriveKeypairSoft',
  'sr25519DerivePublicSoft',
  'twox',
  'vrfSign',
  'vrfVerify',
];
