import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadOrCreateJwtSecret, refuseJwt, signJwt } from './jwt-auth.ts';

const dir = await mkdtemp(join(tmpdir(), 'idx-jwt-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const secret = Buffer.alloc(32, 7);
const now = 1_700_000_000;

t.test('the secret file: made when missing (owner-only), read as geth writes it, refused when malformed', async (t) => {
  const made = await loadOrCreateJwtSecret(join(dir, 'new.hex'));
  t.equal(made.created, true);
  t.equal(made.secret.length, 32);
  t.equal((await stat(join(dir, 'new.hex'))).mode & 0o777, 0o600, 'only its owner can read it');
  t.same((await loadOrCreateJwtSecret(join(dir, 'new.hex'))).secret, made.secret, 'and read back the next time');
  t.equal((await readFile(join(dir, 'new.hex'), 'utf8')).trim(), made.secret.toString('hex'));
  await writeFile(join(dir, 'geth.hex'), `0x${secret.toString('hex')}\n`);
  t.same(await loadOrCreateJwtSecret(join(dir, 'geth.hex')), { secret, created: false }, '0x prefix and newline allowed');
  await writeFile(join(dir, 'short.hex'), 'abcd');
  await t.rejects(loadOrCreateJwtSecret(join(dir, 'short.hex')), { code: 'ADMIN_SECRET_INVALID', message: /short\.hex must hold 32 bytes as 64 hex digits/ });
  await t.rejects(loadOrCreateJwtSecret(join(dir, 'no-such-dir', 'x.hex')), { code: 'ADMIN_SECRET_UNREADABLE', message: /no-such-dir/ });
});

t.test('tokens: a fresh HS256 token with the secret passes; anything else is refused with the reason', async (t) => {
  t.equal(refuseJwt(`Bearer ${signJwt(secret, now)}`, secret, now), undefined);
  t.equal(refuseJwt(`bearer ${signJwt(secret, now - 60)}`, secret, now), undefined, '60 s of clock skew is allowed');
  t.match(refuseJwt(undefined, secret, now), /missing token/);
  t.match(refuseJwt('Basic abc', secret, now), /missing token/);
  t.match(refuseJwt('Bearer abc', secret, now), /not a JWT/);
  t.match(refuseJwt(`Bearer ${signJwt(Buffer.alloc(32, 8), now)}`, secret, now), /signature does not match/, 'another secret');
  t.match(refuseJwt(`Bearer ${signJwt(secret, now - 61)}`, secret, now), /stale token/);
  t.match(refuseJwt(`Bearer ${signJwt(secret, now + 61)}`, secret, now), /stale token/);
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const none = `${b64({ alg: 'none' })}.${b64({ iat: now })}.`;
  t.match(refuseJwt(`Bearer ${none}`, secret, now), /must be HS256/, 'alg none is refused');
  const noIat = `${b64({ alg: 'HS256' })}.${b64({})}`;
  t.match(refuseJwt(`Bearer ${noIat}.${createHmac('sha256', secret).update(noIat).digest('base64url')}`, secret, now), /need an "iat"/);
  const tampered = signJwt(secret, now).split('.');
  tampered[1] = b64({ iat: now + 1 });
  t.match(refuseJwt(`Bearer ${tampered.join('.')}`, secret, now), /signature does not match/, 'changed claims break the signature');
});
