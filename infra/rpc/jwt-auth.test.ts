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

t.test('tokens: a signature in any other encoding than its own, and exp/nbf when given, are checked', async (t) => {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const signed = (claims: object) => {
    const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
  };
  const token = signJwt(secret, now);
  const [body, sig] = [token.slice(0, token.lastIndexOf('.')), token.slice(token.lastIndexOf('.') + 1)];
  // 32 bytes are 43 characters whose last carries 2 spare bits: another last letter decodes alike
  const last = sig.at(-1)!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const spare = alphabet[alphabet.indexOf(last) ^ 1]!;
  for (const [what, other] of [
    ['padded', `${sig}=`],
    ['standard base64 letters', Buffer.from(sig, 'base64url').toString('base64').replace(/=+$/, '')],
    ['a character outside the alphabet', `${sig.slice(0, 10)}.${sig.slice(10)}`.replace('.', '*')],
    ['spare bits set', `${sig.slice(0, -1)}${spare}`],
  ] as const) {
    if (other === sig) continue;
    t.same(Buffer.from(other, 'base64url'), Buffer.from(sig, 'base64url'), `${what}: decodes to the same bytes`);
    t.match(refuseJwt(`Bearer ${body}.${other}`, secret, now), /signature does not match/, `${what}: refused`);
  }
  t.equal(refuseJwt(`Bearer ${signed({ iat: now, exp: now + 30, nbf: now - 5 })}`, secret, now), undefined, 'within exp and nbf');
  t.match(refuseJwt(`Bearer ${signed({ iat: now, exp: now })}`, secret, now), /expired token: it expired at 1700000000/);
  t.match(refuseJwt(`Bearer ${signed({ iat: now, exp: now - 10 })}`, secret, now), /expired token/);
  t.match(refuseJwt(`Bearer ${signed({ iat: now, nbf: now + 10 })}`, secret, now), /not valid yet: not before 1700000010/);
  t.match(refuseJwt(`Bearer ${signed({ iat: now, exp: 'tomorrow' })}`, secret, now), /"exp" must be a time in seconds/);
});
