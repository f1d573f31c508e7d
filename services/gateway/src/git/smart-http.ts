/**
 * git's smart HTTP protocol at `{ROOT_URL}{owner}/{repo}.git` (or without `.git`, as Gitea): `GET …/info/refs?
 * service=git-upload-pack|git-receive-pack`, `POST …/git-upload-pack` and `POST …/git-receive-pack`. The
 * caller signs in as on the API (a password, or a token as the Basic password); repos says what they may do;
 * git-storage runs `git upload-pack` / `git receive-pack` and its output streams back. Bodies are piped both
 * ways chunk by chunk: no pack is ever held whole, and a client that goes away cancels the call.
 *
 * Answers other than git's own are plain text, as Gitea's (git shows them as `remote: …` lines: sign-in.ts).
 */
import type { ServerResponse } from 'node:http';
import { INTERNAL_ERROR_MESSAGE, goFormString, isHttpError, parseGoQuery } from '@cairn/http';
import type { BranchRule, ReceivePackRequest, TagRule, UploadPackRequest } from '@cairn/proto/cairn/git/v1/git_service';
import type { PushRule, PushTagRule } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, httpStatusOf, isCairnError } from '@cairn/rpc';
import { gitRepositoryOf } from '@cairn/gitea-json';
import { lookUpRepo, repoNameOf } from '../api/repo-context';
import type { GatewayServices, RepoContext } from '../api/types';
import type { Authenticate } from '../auth/authenticate';
import { viewerOf, type Caller } from '../auth/caller';
import type { GatewayRequest, GatewayResponse } from '../http/exchange';
import { type GatewayRouter, createRouter } from '../http/express-router';
import { sendRedirect } from '../http/respond';
import { markRoute } from '../http/route-metrics';
import { abortOnClientClose, requestChunks, writeChunks } from '../http/stream';
import {
  type GitRefusal,
  type GitService,
  HTTP_GIT_DISABLED,
  PUSH_DENIED,
  REPOSITORY_NOT_FOUND,
  gitAccessRefusal,
} from './access';
import { GitRepoCache } from './repo-cache';
import { rawQueryOf, refuse, sendPlain, signInAsGit } from './sign-in';
import { pushContextOf } from './storage-ref';

export interface SmartHttpOptions {
  services: GatewayServices;
  authenticate: Authenticate;
  /** Repositories fetched from lately (repo-cache.ts); a fresh one when not given. */
  repoCache?: GitRepoCache;
}

/** Only `key=value(:key=value)*` reaches git's GIT_PROTOCOL (Gitea's safeGitProtocolHeader). */
const SAFE_GIT_PROTOCOL = /^[0-9a-zA-Z]+=[0-9a-zA-Z]+(:[0-9a-zA-Z]+=[0-9a-zA-Z]+)*$/;

const SERVICE_NAMES: Readonly<Record<string, GitService>> = { 'git-upload-pack': 'upload-pack', 'git-receive-pack': 'receive-pack' };

const UNSUPPORTED_SERVICE: GitRefusal = { status: 403, body: 'Unsupported service: only the smart HTTP protocol is served' };

/** Gitea's setHeaderNoCache: git answers must never be cached by a proxy. */
function setNoCache(res: ServerResponse): void {
  res.setHeader('Expires', 'Fri, 01 Jan 1980 00:00:00 GMT');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('Cache-Control', 'no-cache, max-age=0, must-revalidate');
}

function gitProtocolOf(req: GatewayRequest): string {
  const header = req.headers['git-protocol'];
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && SAFE_GIT_PROTOCOL.test(value) ? value : '';
}

async function* dataOf(messages: AsyncIterable<{ data: Buffer }>): AsyncIterable<Buffer> {
  for await (const message of messages) yield message.data;
}

/**
 * Passes `chunks` on, closing the connection when the client takes none for `idleMs` (`[git.timeout] IDLE`): a
 * client that stopped reading then holds nothing (the call behind is cancelled, git-storage's git stopped), as
 * git-storage itself cuts off a client that stopped sending.
 */
async function* cutOffStalledReader(res: ServerResponse, chunks: AsyncIterable<Buffer>, idleMs: number): AsyncIterable<Buffer> {
  let timer: NodeJS.Timeout | undefined;
  try {
    for await (const chunk of chunks) {
      // Resumes once the chunk was written and the socket drained.
      timer = setTimeout(() => res.destroy(), idleMs);
      yield chunk;
      clearTimeout(timer);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The first request message (naming the repository), then one message per body chunk. */
async function* requestMessages<T>(first: T, body: AsyncIterable<Buffer>, wrap: (data: Buffer) => T): AsyncIterable<T> {
  yield first;
  for await (const chunk of body) yield wrap(chunk);
}

function branchRuleOf(rule: PushRule): BranchRule {
  return {
    ruleName: rule.ruleName,
    canPush: rule.canPush,
    canForcePush: rule.canForcePush,
    canDelete: rule.canDelete,
    requireSignedCommits: rule.requireSignedCommits,
    protectedFilePatterns: rule.protectedFilePatterns,
    unprotectedFilePatterns: rule.unprotectedFilePatterns,
  };
}

function tagRuleOf(rule: PushTagRule): TagRule {
  return { namePattern: rule.namePattern, allowed: rule.allowed };
}

/** A request that passed every check: who asks and the repository. */
interface Admitted {
  caller: Caller;
  repo: RepoContext;
}

const EMPTY = Buffer.alloc(0);

/**
 * git-storage stopped the git process of the request (`[git.timeout]`): a client that sent nothing for IDLE seconds
 * gets 408 (it was the slow side), one past the wall-clock limit 503; the reason says which.
 */
const GIT_TIME_LIMITS: Readonly<Record<string, { status: number; message: string }>> = {
  git_idle_timeout: { status: 408, message: 'the git transfer was cut off: no data moved for longer than the idle limit ([git.timeout] IDLE)' },
  git_timeout: { status: 503, message: 'the git operation ran longer than allowed ([git.timeout]) and was stopped' },
};

const RETRY_AFTER_SECONDS = '5';

export function createSmartHttpRouter({ services, authenticate, repoCache = new GitRepoCache() }: SmartHttpOptions): GatewayRouter {
  const { config, clients, logger } = services;
  const router = createRouter();

  /** A failure before the answer began becomes a plain-text status; after, the connection is cut. */
  const answerFailure = (req: GatewayRequest, res: GatewayResponse, error: unknown): void => {
    if (res.headersSent) {
      if (!res.destroyed) logger.warn({ err: error, path: req.originalUrl.split('?')[0] }, 'git transfer failed after its answer began');
      res.destroy();
      return;
    }
    // Nobody is left to answer when the client went away.
    if (res.destroyed || res.socket === null || res.socket.destroyed) return;
    if (isCairnError(error) && error.code === Code.NOT_FOUND) {
      refuse(res, REPOSITORY_NOT_FOUND);
      return;
    }
    const stopped = isCairnError(error) && error.reason !== undefined ? GIT_TIME_LIMITS[error.reason] : undefined;
    if (stopped !== undefined) {
      sendPlain(res, stopped.status, stopped.message);
      return;
    }
    // A request git-storage (or the gateway, for a broken gzip body) cannot read is a bad request, as http-backend says.
    const status = isCairnError(error) ? httpStatusOf(error, { [Code.INVALID_ARGUMENT]: 400 }) : 500;
    if (status >= 500) logger.error({ err: error, status, method: req.method, path: req.originalUrl.split('?')[0] }, 'git request failed');
    // A full git-storage node (RESOURCE_EXHAUSTED): git clients and proxies may retry after a pause.
    if (status === 429) res.setHeader('Retry-After', RETRY_AFTER_SECONDS);
    const message = isCairnError(error) && (status < 500 || status === 503) ? error.message : INTERNAL_ERROR_MESSAGE;
    sendPlain(res, status, message);
  };

  /**
   * Gitea's `httpBase`: HTTP git switched off, who asks (bad credentials: 401), the repository as they may see
   * it (a former name: 301 to the current one), then what they may do. Undefined when the answer is already sent.
   */
  const admit = async (req: GatewayRequest, res: GatewayResponse, service: GitService): Promise<Admitted | undefined> => {
    if (config.server.disableHttpGit) {
      refuse(res, HTTP_GIT_DISABLED);
      return undefined;
    }
    const caller = await signInAsGit(config, authenticate, req, res);
    if (caller === undefined) return undefined;
    const requested = req.params.repo ?? '';
    const name = repoNameOf(requested);
    const owner = req.params.owner ?? '';
    const viewer = viewerOf(caller.user);
    const load = () =>
      lookUpRepo(services, viewer, owner, name).catch((error: unknown) => {
        if (isHttpError(error) && error.status === 404) return undefined;
        throw error;
      });
    // A fetch is several requests: the repository is looked up once for all (repo-cache.ts). Pushes always ask.
    const found = service === 'upload-pack' ? await repoCache.lookUp(GitRepoCache.key(viewer, owner, name), load) : await load();
    if (found?.kind === 'renamed') {
      // Git follows a 301 from info/refs and sends the rest of the exchange to the new address.
      const suffix = requested.slice(name.length);
      const afterOwner = req.originalUrl.indexOf('/', 1);
      const tail = req.originalUrl.slice(req.originalUrl.indexOf('/', afterOwner + 1));
      const subPath = new URL(config.server.rootUrl).pathname.replace(/\/$/, '');
      sendRedirect(req, res, 301, `${subPath}/${encodeURIComponent(found.owner)}/${encodeURIComponent(found.name)}${suffix}${tail}`);
      return undefined;
    }
    const repo = found?.value;
    const refusal = gitAccessRefusal({ service, caller, repo, requireSigninView: config.service.requireSigninView });
    if (refusal !== undefined || repo === undefined) {
      refuse(res, refusal ?? REPOSITORY_NOT_FOUND);
      return undefined;
    }
    return { caller, repo };
  };

  /** Streams a service's output as the answer, with git's content type. */
  const stream = async (res: GatewayResponse, output: AsyncIterable<{ data: Buffer }>, contentType: string): Promise<void> => {
    await writeChunks(res, cutOffStalledReader(res, dataOf(output), config.git.timeout.idle), () => {
      res.statusCode = 200;
      res.setHeader('Content-Type', contentType);
      setNoCache(res);
    });
  };

  router.get('/:owner/:repo/info/refs', markRoute('/{owner}/{repo}/info/refs'), async (req, res) => {
    try {
      const service = SERVICE_NAMES[goFormString(parseGoQuery(rawQueryOf(req)), 'service')];
      if (service === undefined) {
        refuse(res, UNSUPPORTED_SERVICE);
        return;
      }
      const admitted = await admit(req, res, service);
      if (admitted === undefined) return;
      const output = clients.smartHttp.infoRefs(
        { repository: gitRepositoryOf(admitted.repo.repository), service: `git-${service}`, gitProtocol: gitProtocolOf(req) },
        { signal: abortOnClientClose(res) },
      );
      await stream(res, output, `application/x-git-${service}-advertisement`);
    } catch (error) {
      answerFailure(req, res, error);
    }
  });

  /** Gitea answers a POST without git's request content type with a bare 401. */
  const hasRequestType = (req: GatewayRequest, res: GatewayResponse, service: GitService): boolean => {
    if (req.headers['content-type'] === `application/x-git-${service}-request`) return true;
    res.statusCode = 401;
    res.end();
    return false;
  };

  router.post('/:owner/:repo/git-upload-pack', markRoute('/{owner}/{repo}/git-upload-pack'), async (req, res) => {
    try {
      const admitted = await admit(req, res, 'upload-pack');
      if (admitted === undefined || !hasRequestType(req, res, 'upload-pack')) return;
      const first: UploadPackRequest = { repository: gitRepositoryOf(admitted.repo.repository), gitProtocol: gitProtocolOf(req), data: EMPTY };
      const requests = requestMessages<UploadPackRequest>(first, requestChunks(req), (data) => ({ gitProtocol: '', data }));
      const output = clients.smartHttp.uploadPack(requests, { signal: abortOnClientClose(res) });
      await stream(res, output, 'application/x-git-upload-pack-result');
    } catch (error) {
      answerFailure(req, res, error);
    }
  });

  router.post('/:owner/:repo/git-receive-pack', markRoute('/{owner}/{repo}/git-receive-pack'), async (req, res) => {
    try {
      const admitted = await admit(req, res, 'receive-pack');
      if (admitted === undefined || !hasRequestType(req, res, 'receive-pack')) return;
      const { caller, repo } = admitted;
      const pusher = caller.user;
      if (pusher === undefined) throw new Error('a push was admitted without a signed-in user');
      const policy = await clients.repos.getPushPolicy({ pusher: viewerOf(pusher), id: repo.repository.id }).catch((error: unknown) => {
        if (isCairnError(error) && error.code === Code.PERMISSION_DENIED) return undefined;
        throw error;
      });
      if (policy === undefined) {
        refuse(res, PUSH_DENIED);
        return;
      }
      const first: ReceivePackRequest = {
        repository: gitRepositoryOf(repo.repository),
        gitProtocol: gitProtocolOf(req),
        push: pushContextOf(pusher, repo.repository),
        rules: policy.rules.map(branchRuleOf),
        tagRules: policy.tagRules.map(tagRuleOf),
        data: EMPTY,
      };
      const requests = requestMessages<ReceivePackRequest>(first, requestChunks(req), (data) => ({ gitProtocol: '', rules: [], tagRules: [], data }));
      const output = clients.smartHttp.receivePack(requests, { signal: abortOnClientClose(res) });
      await stream(res, output, 'application/x-git-receive-pack-result');
    } catch (error) {
      answerFailure(req, res, error);
    }
  });

  return router;
}
