/**
 * Tokens the server issues (IAM, CPD). They are JWT-shaped, so clients can read `exp` the way
 * they do with real IAM and CPD tokens, and signed with a per-server secret so only tokens from
 * this server are accepted.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type TokenCheck = 'valid' | 'expired' | 'unknown';

export interface IssuedToken {
  token: string;
  /** Epoch seconds. */
  expiration: number;
  expiresIn: number;
}

export class TokenStore {
  private readonly secret = randomBytes(32);
  private issued = 0;
  /** Tokens numbered up to this one count as expired (expireTokens()). */
  private expiredThrough = 0;

  constructor(
    private readonly ttlSeconds: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  issue(subject: string, issuer: string): IssuedToken {
    const iat = Math.floor(this.now() / 1000);
    const exp = iat + this.ttlSeconds;
    const payload = { iss: issuer, sub: subject, iat, exp, jti: String(++this.issued) };
    const head = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify(payload))}`;
    return { token: `${head}.${this.sign(head)}`, expiration: exp, expiresIn: this.ttlSeconds };
  }

  check(token: string): TokenCheck {
    const parts = token.split('.');
    if (parts.length !== 3) return 'unknown';
    const [header, body, signature] = parts as [string, string, string];
    const expected = Buffer.from(this.sign(`${header}.${body}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'unknown';
    let payload: { exp?: unknown; jti?: unknown };
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof payload;
    } catch {
      return 'unknown';
    }
    if (Number(payload.jti) <= this.expiredThrough) return 'expired';
    if (typeof payload.exp !== 'number' || payload.exp * 1000 <= this.now()) return 'expired';
    return 'valid';
  }

  expireAll(): void {
    this.expiredThrough = this.issued;
  }

  private sign(data: string): string {
    return createHmac('sha256', this.secret).update(data).digest('base64url');
  }
}

function b64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
