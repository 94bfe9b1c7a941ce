/**
 * The auth handshakes a watsonx client performs, served locally: IBM Cloud IAM's token endpoint,
 * Cloud Pak for Data's authorize endpoint, and the check of `Authorization` on generation routes.
 */
import { randomUUID } from 'node:crypto';
import { applyFault, type FaultWording } from '../../../src/emulator/core/apply-fault.js';
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { BUSY_MESSAGE, codeForStatus, messageForStatus } from './errors.js';

const APIKEY_GRANT = 'urn:ibm:params:oauth:grant-type:apikey';
const ISSUER_IAM = 'https://iam.cloud.ibm.com/identity';
const ISSUER_CPD = 'KNOXSSO';

function iamError(
  ctx: RouteContext,
  status: number,
  errorCode: string,
  errorMessage: string,
  headers: Record<string, string> = {},
): void {
  const now = Date.now();
  sendJson(
    ctx.res,
    status,
    {
      errorCode,
      errorMessage,
      context: {
        requestId: randomUUID(),
        requestType: 'incoming.Identity_Token',
        userAgent: ctx.request.headers['user-agent'] ?? '',
        url: ctx.request.headers.host ? `http://${ctx.request.headers.host}` : '',
        instanceId: 'textgen-local',
        threadId: '1',
        host: 'localhost',
        startTime: new Date(now).toUTCString(),
        endTime: new Date(now).toUTCString(),
        elapsedTime: '0',
        locale: 'en_US',
        clusterName: 'textgen-local',
      },
    },
    headers,
  );
}

/**
 * Token exchanges take faults too (auxiliary routes: their own, or one queued with `path=/identity/token` or
 * `path=/icp4d-api`), worded as each endpoint words its errors. Returns true when the fault answered.
 */
async function exchangeFault(
  ctx: RouteContext,
  send: (status: number, message: string, headers: Record<string, string>) => void,
): Promise<boolean> {
  const wording: FaultWording = {
    status: (status, headers) => send(status, messageForStatus(status), headers),
    busy: (headers) => send(503, BUSY_MESSAGE, headers),
  };
  return applyFault(takeFault(ctx, false, { auxiliary: true }), ctx, wording);
}

/** POST /identity/token — form body `grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=…`. */
export async function iamToken(ctx: RouteContext): Promise<void> {
  const form = new URLSearchParams(ctx.request.body);
  const grant = form.get('grant_type');
  const apikey = form.get('apikey');
  if (!grant) return iamError(ctx, 400, 'BXNIM0109E', 'Property missing or empty. Property: grant_type.');
  if (grant !== APIKEY_GRANT) return iamError(ctx, 400, 'BXNIM0104E', `Unsupported grant type: ${grant}.`);
  if (!apikey) return iamError(ctx, 400, 'BXNIM0109E', 'Property missing or empty. Property: apikey.');
  const keyIndex = ctx.server.options.apiKeys.indexOf(apikey);
  if (keyIndex < 0) return iamError(ctx, 400, 'BXNIM0415E', 'Provided API key could not be found.');
  if (
    await exchangeFault(ctx, (status, message, headers) =>
      iamError(ctx, status, codeForStatus(status), message, headers),
    )
  )
    return;

  const issued = ctx.server.tokens.issue(`iam-ServiceId-${keyIndex}`, ISSUER_IAM);
  sendJson(ctx.res, 200, {
    access_token: issued.token,
    // IAM hands API-key logins no usable refresh token; clients log in again.
    refresh_token: 'not_supported',
    token_type: 'Bearer',
    expires_in: issued.expiresIn,
    expiration: issued.expiration,
    scope: 'ibm openid',
  });
}

function cpdError(ctx: RouteContext, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(ctx.res, status, { _messageCode_: String(status), _statusCode_: status, message }, headers);
}

/** POST /icp4d-api/v1/authorize — JSON `{username, api_key}` or `{username, password}`, exactly one of the two. */
export async function cpdAuthorize(ctx: RouteContext): Promise<void> {
  const body = ctx.request.json;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return cpdError(ctx, 400, 'The request body must be a JSON object');
  const { username, api_key: apiKey, password } = body as Record<string, unknown>;
  if (typeof username !== 'string' || username === '') return cpdError(ctx, 400, 'Missing username');
  if ((apiKey === undefined) === (password === undefined))
    return cpdError(ctx, 400, 'Give exactly one of api_key or password');
  const { apiKeys, users } = ctx.server.options;
  const known =
    apiKey !== undefined
      ? typeof apiKey === 'string' && apiKeys.includes(apiKey)
      : typeof password === 'string' && Object.hasOwn(users, username) && users[username] === password;
  if (!known) return cpdError(ctx, 401, 'Invalid user credentials');
  if (await exchangeFault(ctx, (status, message, headers) => cpdError(ctx, status, message, headers))) return;
  const issued = ctx.server.tokens.issue(username, ISSUER_CPD);
  sendJson(ctx.res, 200, { _messageCode_: '200', message: 'Success', token: issued.token });
}

export type AuthVerdict =
  | { ok: true }
  | { ok: false; code: 'authorization_rejected' | 'authentication_token_expired'; message: string };

/**
 * Checks `Authorization` on a generation request. Without requireAuth anything goes, except a
 * token this server issued that has expired: that still answers 401, so clients can practise refreshing.
 */
export function authorizeGeneration(ctx: RouteContext): AuthVerdict {
  const header = ctx.request.headers.authorization ?? '';
  const [scheme = '', credential = ''] = header.trim().split(/\s+/, 2);
  const { requireAuth, apiKeys } = ctx.server.options;
  const expired: AuthVerdict = {
    ok: false,
    code: 'authentication_token_expired',
    message: 'Failed to authenticate the request due to an expired token',
  };
  const rejected = (message: string): AuthVerdict =>
    requireAuth ? { ok: false, code: 'authorization_rejected', message } : { ok: true };

  if (scheme.toLowerCase() === 'bearer' && credential) {
    const check = ctx.server.tokens.check(credential);
    if (check === 'expired') return expired;
    return check === 'valid' ? { ok: true } : rejected('Failed to authenticate the request due to an invalid token');
  }
  if (scheme.toLowerCase() === 'zenapikey' && credential) {
    const decoded = Buffer.from(credential, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const valid = colon > 0 && apiKeys.includes(decoded.slice(colon + 1));
    return valid ? { ok: true } : rejected('Failed to authenticate the request due to an invalid ZenApiKey');
  }
  return rejected('Failed to authenticate the request due to a missing or unsupported Authorization header');
}
