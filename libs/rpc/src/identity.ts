/**
 * Service identity: who is calling over gRPC, proven by a short-lived token each caller signs with its own Ed25519
 * key, and who the call acts for, proven by an actor assertion that only an edge (the gateway, the CLI) signs.
 *
 * Every identity has a key pair. A process holds the private keys of the identities it runs (in embedded mode
 * all of them, in Kubernetes one) and the public keys of every identity that may call it. Keys live in one
 * directory (`[rpc] KEYS_DIR`): `<identity>.key` (PKCS#8 PEM, mode 0600) and `<identity>.pub` (SPKI PEM, one or
 * more blocks: every block verifies, so a key is rotated by publishing the new public key beside the old one first).
 *
 * Tokens are `v1.<payload>.<signature>` (base64url JSON payload, Ed25519 over `v1.<payload>`). A service token names
 * its audience (the called service) so a callee cannot replay it elsewhere; an actor assertion travels with the
 * request through every hop (the ambient request context) and is checked against the actor fields of the calls
 * the services make on the user's behalf (authorize.ts).
 */
import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GRPC_SERVICES, type GrpcServiceName } from '@cairn/config';
import { currentRequestId, newRequestId, runWithRequestContext } from '@cairn/log';
import { CairnError, Code } from './errors';

/** The edges: the only identities that authenticate users and so may assert who a call acts for. */
export const EDGE_IDENTITIES = ['gateway', 'cli'] as const;
export type EdgeIdentity = (typeof EDGE_IDENTITIES)[number];
/** Every identity that may hold a key: the edges and each gRPC service. */
export const IDENTITIES = [...EDGE_IDENTITIES, ...GRPC_SERVICES] as const;
export type Identity = EdgeIdentity | GrpcServiceName;

export function isIdentity(value: string): value is Identity {
  return (IDENTITIES as readonly string[]).includes(value);
}

export function isEdge(identity: Identity): identity is EdgeIdentity {
  return (EDGE_IDENTITIES as readonly string[]).includes(identity);
}

/** Metadata keys on the wire. */
export const SERVICE_TOKEN_HEADER = 'x-cairn-service-token';
export const ACTOR_ASSERTION_HEADER = 'x-cairn-actor';

/** A service token lives 10 minutes and is renewed once half of that has passed; verifiers allow 60 s of clock skew. */
const SERVICE_TOKEN_TTL_S = 600;
/** An actor assertion lives 5 minutes (a request and every call it makes), renewed after one. */
const ACTOR_ASSERTION_TTL_S = 300;
const ACTOR_ASSERTION_RENEW_S = 60;
const CLOCK_SKEW_S = 60;
/** Verified tokens are remembered (a verification costs ~0.1 ms); the cache is emptied when it grows past this. */
const VERIFIED_CACHE_LIMIT = 4096;

/** Who a call acts for, as an edge asserted it: the fields of `cairn.common.v1.Actor`. */
export interface AssertedActor {
  userId: number;
  isAdmin: boolean;
  isRestricted: boolean;
}

interface ServiceClaims {
  t: 'svc';
  iss: Identity;
  aud: Identity;
  iat: number;
  exp: number;
}

interface ActorClaims {
  t: 'act';
  iss: EdgeIdentity;
  sub: number;
  adm: boolean;
  rst: boolean;
  iat: number;
  exp: number;
}

type Claims = ServiceClaims | ActorClaims;

interface KeyPair {
  privateKey: KeyObject | undefined;
  publicKeys: KeyObject[];
}

/**
 * The keys a process holds. Signing needs the identity's private key; verifying needs the issuer's public keys.
 * Tokens it signs are reused until half their life has passed, so a call costs no signature.
 */
export class Keyring {
  private readonly keys = new Map<Identity, KeyPair>();
  private readonly issued = new Map<string, { token: string; renewAt: number }>();
  private readonly verified = new Map<string, Claims>();

  /** Adds a private key (its public key is trusted too) or public keys for `identity`. */
  add(identity: Identity, keys: { privateKey?: KeyObject; publicKeys?: KeyObject[] }): this {
    const pair = this.keys.get(identity) ?? { privateKey: undefined, publicKeys: [] };
    if (keys.privateKey !== undefined) {
      pair.privateKey = keys.privateKey;
      pair.publicKeys.push(createPublicKey(keys.privateKey));
    }
    pair.publicKeys.push(...(keys.publicKeys ?? []));
    this.keys.set(identity, pair);
    return this;
  }

  canSignAs(identity: Identity): boolean {
    return this.keys.get(identity)?.privateKey !== undefined;
  }

  /** A token proving to `audience` that the caller is `issuer`. */
  serviceToken(issuer: Identity, audience: Identity): string {
    return this.reuse(`svc:${issuer}:${audience}`, SERVICE_TOKEN_TTL_S / 2, () => {
      const iat = nowSeconds();
      return this.sign(issuer, { t: 'svc', iss: issuer, aud: audience, iat, exp: iat + SERVICE_TOKEN_TTL_S });
    });
  }

  /** An edge's statement that the calls it makes now act for `actor`. */
  actorAssertion(issuer: EdgeIdentity, actor: AssertedActor): string {
    const key = `act:${issuer}:${actor.userId}:${actor.isAdmin}:${actor.isRestricted}`;
    return this.reuse(key, ACTOR_ASSERTION_RENEW_S, () => {
      const iat = nowSeconds();
      return this.sign(issuer, {
        t: 'act',
        iss: issuer,
        sub: actor.userId,
        adm: actor.isAdmin,
        rst: actor.isRestricted,
        iat,
        exp: iat + ACTOR_ASSERTION_TTL_S,
      });
    });
  }

  /** The identity a service token proves to `audience`; UNAUTHENTICATED when it proves nothing. */
  verifyServiceToken(token: string, audience: Identity): Identity {
    const claims = this.verify(token);
    if (claims.t !== 'svc') throw unauthenticated('not a service token');
    if (claims.aud !== audience) throw unauthenticated(`service token is for ${claims.aud}, not ${audience}`);
    return claims.iss;
  }

  /** The actor an edge asserted; UNAUTHENTICATED when the assertion is not valid. */
  verifyActorAssertion(token: string): AssertedActor {
    const claims = this.verify(token);
    if (claims.t !== 'act') throw unauthenticated('not an actor assertion');
    return { userId: claims.sub, isAdmin: claims.adm, isRestricted: claims.rst };
  }

  private reuse(key: string, renewAfterS: number, mint: () => string): string {
    const now = nowSeconds();
    const cached = this.issued.get(key);
    if (cached !== undefined && cached.renewAt > now) return cached.token;
    const token = mint();
    this.issued.set(key, { token, renewAt: now + renewAfterS });
    return token;
  }

  private sign(issuer: Identity, claims: Claims): string {
    const privateKey = this.keys.get(issuer)?.privateKey;
    if (privateKey === undefined) throw new CairnError(Code.UNAUTHENTICATED, `no private key for the identity "${issuer}"`);
    const signed = `v1.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${signed}.${sign(null, Buffer.from(signed), privateKey).toString('base64url')}`;
  }

  private verify(token: string): Claims {
    const now = nowSeconds();
    let claims = this.verified.get(token);
    if (claims === undefined) {
      claims = this.verifySignature(token);
      if (this.verified.size >= VERIFIED_CACHE_LIMIT) this.verified.clear();
      this.verified.set(token, claims);
    }
    if (claims.exp + CLOCK_SKEW_S < now) throw unauthenticated('credential expired');
    if (claims.iat - CLOCK_SKEW_S > now) throw unauthenticated('credential issued in the future');
    return claims;
  }

  private verifySignature(token: string): Claims {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== 'v1') throw unauthenticated('malformed credential');
    const claims = parseClaims(parts[1] ?? '');
    const publicKeys = this.keys.get(claims.iss)?.publicKeys ?? [];
    const signature = Buffer.from(parts[2] ?? '', 'base64url');
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
    if (!publicKeys.some((key) => verify(null, signed, key, signature))) throw unauthenticated(`credential not signed by ${claims.iss}`);
    return claims;
  }
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function unauthenticated(why: string): CairnError {
  return new CairnError(Code.UNAUTHENTICATED, `unauthenticated: ${why}`);
}

function parseClaims(encoded: string): Claims {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw unauthenticated('malformed credential');
  }
  if (typeof value !== 'object' || value === null) throw unauthenticated('malformed credential');
  const claims = value as Record<string, unknown>;
  const iss = typeof claims.iss === 'string' && isIdentity(claims.iss) ? claims.iss : undefined;
  if (iss === undefined || typeof claims.iat !== 'number' || typeof claims.exp !== 'number') throw unauthenticated('malformed credential');
  if (claims.t === 'svc' && typeof claims.aud === 'string' && isIdentity(claims.aud)) {
    return { t: 'svc', iss, aud: claims.aud, iat: claims.iat, exp: claims.exp };
  }
  if (claims.t === 'act' && isEdge(iss) && typeof claims.sub === 'number' && typeof claims.adm === 'boolean' && typeof claims.rst === 'boolean') {
    return { t: 'act', iss, sub: claims.sub, adm: claims.adm, rst: claims.rst, iat: claims.iat, exp: claims.exp };
  }
  throw unauthenticated('malformed credential');
}

/** A key pair for every identity, in memory (tests; `writeKeys` for a directory). */
export function generateKeyring(identities: readonly Identity[] = IDENTITIES): Keyring {
  const keyring = new Keyring();
  for (const identity of identities) keyring.add(identity, { privateKey: generateKeyPairSync('ed25519').privateKey });
  return keyring;
}

const KEY_SUFFIX = '.key';
const PUBLIC_SUFFIX = '.pub';

/**
 * Writes a key pair for each of `identities` that has none in `dir` yet (directory 0700, private keys 0600) and
 * returns the identities it created keys for. Existing keys are never replaced.
 */
export function ensureKeys(dir: string, identities: readonly Identity[] = IDENTITIES): Identity[] {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const created: Identity[] = [];
  for (const identity of identities) {
    const keyFile = path.join(dir, identity + KEY_SUFFIX);
    if (existsSync(keyFile)) continue;
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(path.join(dir, identity + PUBLIC_SUFFIX), publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
    created.push(identity);
  }
  return created;
}

const PEM_BLOCK = /-----BEGIN PUBLIC KEY-----[A-Za-z0-9+/=\s]+?-----END PUBLIC KEY-----/g;

/**
 * Reads every `<identity>.key` and `<identity>.pub` in `dir` (other files are ignored, so a Kubernetes projected
 * volume's own entries do not matter). A missing directory reads as no keys.
 */
export function loadKeyring(dir: string): Keyring {
  const keyring = new Keyring();
  if (!existsSync(dir)) return keyring;
  for (const file of readdirSync(dir)) {
    const suffix = file.endsWith(KEY_SUFFIX) ? KEY_SUFFIX : file.endsWith(PUBLIC_SUFFIX) ? PUBLIC_SUFFIX : undefined;
    const identity = suffix === undefined ? undefined : file.slice(0, -suffix.length);
    if (identity === undefined || !isIdentity(identity)) continue;
    const text = readFileSync(path.join(dir, file), 'utf8');
    if (suffix === KEY_SUFFIX) keyring.add(identity, { privateKey: createPrivateKey(text) });
    else keyring.add(identity, { publicKeys: (text.match(PEM_BLOCK) ?? []).map((block) => createPublicKey(block)) });
  }
  return keyring;
}

let installed: Keyring | undefined;

/**
 * Makes `keyring` the one every RPC server and client of this process uses. A process installs it once at start
 * (the supervisor, a standalone service, the CLI; tests in jest's set-up); with none installed every call fails
 * closed with UNAUTHENTICATED.
 */
export function installKeyring(keyring: Keyring): void {
  installed = keyring;
}

export function currentKeyring(): Keyring {
  if (installed === undefined) throw new CairnError(Code.UNAUTHENTICATED, 'no service keys are installed in this process');
  return installed;
}

/**
 * Runs `fn` as if an edge had asserted `actor` for the request it handles: the calls `fn` makes pass the assertion
 * on. Only a process holding the edge's private key can (a test, or the edge itself).
 */
export function runAsAsserted<T>(edge: EdgeIdentity, actor: AssertedActor, fn: () => T): T {
  const actorAssertion = currentKeyring().actorAssertion(edge, actor);
  return runWithRequestContext({ requestId: currentRequestId() ?? newRequestId(), actorAssertion }, fn);
}
