import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The server's side of SCRAM-SHA-256 (RFC 5802/7677) as PostgreSQL speaks it, so that `pg`, psql and
 * every libpq client log in to the embedded database's socket with a password that never crosses
 * the socket. No channel binding (the socket has no TLS). Written here because no installed
 * package implements the server's side; node:crypto does the arithmetic.
 */
export const SCRAM_MECHANISM = 'SCRAM-SHA-256';
const ITERATIONS = 4096;

/** What the server keeps of a password: derived once, so a login costs two HMACs, not a PBKDF2. */
export interface ScramSecret {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

export function createScramSecret(password: string): ScramSecret {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, ITERATIONS, 32, 'sha256');
  return {
    salt,
    iterations: ITERATIONS,
    storedKey: createHash('sha256').update(hmac(salted, 'Client Key')).digest(),
    serverKey: hmac(salted, 'Server Key'),
  };
}

/** A login in progress, between the server's first message and the client's proof. */
export interface ScramExchange {
  /** the answer to the client's first message (AuthenticationSASLContinue's data) */
  serverFirst: string;
  /**
   * Checks the client's final message: the server's final message (AuthenticationSASLFinal's data)
   * when the proof holds, undefined when it does not.
   */
  finish(clientFinal: string): string | undefined;
}

/** Starts a login from the client's first message; undefined when it is malformed or asks for channel binding. */
export function startScram(secret: ScramSecret, clientFirst: string): ScramExchange | undefined {
  // gs2 header: n (no binding) or y (client could bind, server did not offer), no authzid
  const m = /^([ny]),,(n=[^,]*,r=([\x21-\x2b\x2d-\x7e]+)(?:,.*)?)$/.exec(clientFirst);
  if (m === null) return undefined;
  const gs2 = `${m[1]},,`;
  const clientFirstBare = m[2]!;
  const nonce = m[3]! + randomBytes(18).toString('base64');
  const serverFirst = `r=${nonce},s=${secret.salt.toString('base64')},i=${secret.iterations}`;
  return {
    serverFirst,
    finish(clientFinal) {
      const f = /^c=([^,]*),r=([^,]*)(,.*)?,p=([A-Za-z0-9+/=]+)$/.exec(clientFinal);
      if (f === null || f[2] !== nonce || Buffer.from(f[1]!, 'base64').toString('latin1') !== gs2) return undefined;
      const withoutProof = clientFinal.slice(0, clientFinal.lastIndexOf(',p='));
      const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
      const proof = Buffer.from(f[4]!, 'base64');
      const signature = hmac(secret.storedKey, authMessage);
      if (proof.length !== signature.length) return undefined;
      const clientKey = Buffer.alloc(proof.length);
      for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ signature[i]!;
      if (!timingSafeEqual(createHash('sha256').update(clientKey).digest(), secret.storedKey)) return undefined;
      return `v=${hmac(secret.serverKey, authMessage).toString('base64')}`;
    },
  };
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}
