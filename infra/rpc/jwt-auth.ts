import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { IdxError } from '../../domain/errors.ts';

/**
 * geth's authenticated RPC (`--authrpc.jwtsecret`, the Engine API's scheme): a 32-byte secret kept
 * in a file as hex, and every request carrying `Authorization: Bearer <JWT>` signed with it (HS256)
 * whose `iat` is within 60 seconds of the server's clock. Tools that speak to geth's auth port
 * (`cast rpc --jwt-secret`, consensus clients' libraries) speak to this too, and a token read off
 * the wire is worthless a minute later.
 */

/** How far a token's `iat` may be from the server's clock, in seconds (geth's value). */
export const JWT_MAX_SKEW_SECONDS = 60;

/**
 * The secret in `path`: 64 hex digits, `0x` and surrounding whitespace allowed. A missing or empty
 * file gets a new random secret, readable by its owner only (as geth does); `created` says so.
 */
export async function loadOrCreateJwtSecret(path: string): Promise<{ secret: Buffer; created: boolean }> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new IdxError('ADMIN_SECRET_UNREADABLE', `cannot read the admin secret file ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (text === undefined || text.trim() === '') {
    const secret = randomBytes(32);
    try {
      await writeFile(path, `${secret.toString('hex')}\n`, { mode: 0o600, flag: text === undefined ? 'wx' : 'w' });
    } catch (err) {
      throw new IdxError('ADMIN_SECRET_UNREADABLE', `cannot write a new admin secret to ${path}: ${(err as Error).message}`, { cause: err });
    }
    return { secret, created: true };
  }
  const hex = text.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new IdxError(
      'ADMIN_SECRET_INVALID',
      `the admin secret file ${path} must hold 32 bytes as 64 hex digits (as geth's jwtsecret file), e.g. made by: openssl rand -hex 32 > ${path}`,
    );
  }
  return { secret: Buffer.from(hex, 'hex'), created: false };
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** A token for `secret` issued at `nowSeconds`: what a client puts after `Bearer `. */
export function signJwt(secret: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const body = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify({ iat: nowSeconds }))}`;
  return `${body}.${b64url(createHmac('sha256', secret).update(body).digest())}`;
}

/** Why an `Authorization` header does not carry a valid token for `secret`, or undefined when it does. */
export function refuseJwt(authorization: string | undefined, secret: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
  if (m === null) return 'missing token: send "Authorization: Bearer <JWT>", a JWT signed (HS256) with the admin secret';
  const parts = m[1]!.split('.');
  if (parts.length !== 3) return 'invalid token: not a JWT (header.claims.signature)';
  const [header, claims, signature] = parts as [string, string, string];
  let alg: unknown;
  let time: { iat?: unknown; exp?: unknown; nbf?: unknown };
  try {
    alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
    time = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as typeof time;
  } catch {
    return 'invalid token: its header or claims are not base64url JSON';
  }
  if (alg !== 'HS256') return `invalid token: the algorithm must be HS256, not ${JSON.stringify(alg)}`;
  const expected = createHmac('sha256', secret).update(`${header}.${claims}`).digest();
  const given = Buffer.from(signature, 'base64url');
  // Node's decoder skips characters outside the alphabet and ignores padding and spare bits, so
  // many strings decode to one signature: only its one unpadded encoding is the token's (RFC 7515)
  if (given.length !== expected.length || given.toString('base64url') !== signature || !timingSafeEqual(given, expected))
    return 'invalid token: the signature does not match the admin secret';
  const { iat, exp, nbf } = time ?? {};
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return 'invalid token: the claims need an "iat" (issued at, in seconds)';
  if (Math.abs(nowSeconds - iat) > JWT_MAX_SKEW_SECONDS)
    return `stale token: issued at ${iat}, more than ${JWT_MAX_SKEW_SECONDS} s from the server's time ${nowSeconds}; make a fresh token for each request`;
  // optional claims (RFC 7519 4.1.4 and 4.1.5), honoured when the client sets them
  for (const [claim, v] of [
    ['exp', exp],
    ['nbf', nbf],
  ] as const) {
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v)))
      return `invalid token: "${claim}" must be a time in seconds, got ${JSON.stringify(v)}`;
  }
  if (typeof exp === 'number' && nowSeconds >= exp)
    return `expired token: it expired at ${exp} ("exp"), and the server's time is ${nowSeconds}; make a fresh token`;
  if (typeof nbf === 'number' && nowSeconds < nbf) return `token not valid yet: not before ${nbf} ("nbf"), and the server's time is ${nowSeconds}`;
  return undefined;
}
