/**
 * Signing in on the web routes git clients and downloads use (smart HTTP, archives), as Gitea's web Basic auth: a
 * password or a token as the Basic password, or a token in the query; bad credentials are a 401 asking for them.
 * Their answers other than the content are plain text, as Gitea's (git shows them as `remote: …` lines).
 */
import type { ServerResponse } from 'node:http';
import type { CairnConfig } from '@cairn/config';
import { isHttpError, parseGoQuery } from '@cairn/http';
import type { Authenticate } from '../auth/authenticate';
import type { Caller } from '../auth/caller';
import { readCredentials } from '../auth/credentials';
import type { GatewayRequest, GatewayResponse } from '../http/exchange';
import { CREDENTIALS_NEEDED, type GitRefusal } from './access';

/** Gitea's realm: git prompts for (or sends its stored) credentials on a 401 carrying it. */
const WWW_AUTHENTICATE = 'Basic realm="Gitea"';

export function sendPlain(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function refuse(res: ServerResponse, refusal: GitRefusal): void {
  if (refusal.askCredentials) res.setHeader('WWW-Authenticate', WWW_AUTHENTICATE);
  sendPlain(res, refusal.status, refusal.body);
}

export function rawQueryOf(req: GatewayRequest): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
}

/** Who asks (anonymous without credentials); undefined when the refusal is already answered. */
export async function signInAsGit(config: CairnConfig, authenticate: Authenticate, req: GatewayRequest, res: GatewayResponse): Promise<Caller | undefined> {
  try {
    const credentials = readCredentials({
      authorization: req.headers.authorization,
      query: parseGoQuery(rawQueryOf(req)),
      disableQueryAuthToken: config.security.disableQueryAuthToken,
    });
    return await authenticate(credentials, req);
  } catch (error) {
    if (isHttpError(error) && error.status === 401) {
      refuse(res, { ...CREDENTIALS_NEEDED, body: error.message });
      return undefined;
    }
    // A throttled (429) or shed (503) password sign-in: git reports the status and the text.
    if (isHttpError(error) && error.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
      sendPlain(res, error.status, error.message);
      return undefined;
    }
    throw error;
  }
}
