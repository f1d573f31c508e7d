/**
 * Source archives as a web route, `{ROOT_URL}{owner}/{repo}/archive/<ref>.zip|.tar.gz|.bundle` (Gitea's
 * routers/web/repo/repo.go `Download`): the address releases' and tags' `zipball_url` / `tarball_url` name. The
 * caller signs in as on git's smart HTTP and is let in as for a fetch (anonymous on a public repository; a hidden
 * or missing repository is 404); the archive itself is the API route's (routes/repos/archive.ts `archiveReply`).
 */
import { INTERNAL_ERROR_MESSAGE, isHttpError } from '@cairn/http';
import { httpStatusOf, isCairnError } from '@cairn/rpc';
import { lookUpRepo } from '../api/repo-context';
import type { GatewayServices } from '../api/types';
import type { Authenticate } from '../auth/authenticate';
import { viewerOf } from '../auth/caller';
import type { GatewayRequest, GatewayResponse } from '../http/exchange';
import { type GatewayRouter, createRouter } from '../http/express-router';
import { sendRedirect } from '../http/respond';
import { markRoute } from '../http/route-metrics';
import { sendStream } from '../http/stream';
import { archiveReply } from '../routes/repos/archive';
import { REPOSITORY_NOT_FOUND, gitAccessRefusal } from './access';
import { refuse, sendPlain, signInAsGit } from './sign-in';

export interface ArchiveRouteOptions {
  services: GatewayServices;
  authenticate: Authenticate;
}

/** express hands the `*archive` wildcard over as its segments. */
function archiveParam(req: GatewayRequest): string {
  const value = (req.params as Record<string, string | string[] | undefined>).archive;
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}

export function createArchiveRouter({ services, authenticate }: ArchiveRouteOptions): GatewayRouter {
  const { config, logger } = services;
  const router = createRouter();

  /** A failure before the answer began is a plain-text status; after, the connection is cut (sendStream). */
  const answerFailure = (req: GatewayRequest, res: GatewayResponse, error: unknown): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (isHttpError(error)) {
      sendPlain(res, error.status, error.message);
      return;
    }
    // A repository without commits has no ref to archive (git-storage's `empty_repository`).
    const status = !isCairnError(error) ? 500 : error.reason === 'empty_repository' ? 404 : httpStatusOf(error);
    if (status >= 500) logger.error({ err: error, status, path: req.originalUrl.split('?')[0] }, 'archive request failed');
    // A dead service is worth naming (as the API does); anything else in 5xx is not.
    sendPlain(res, status, isCairnError(error) && (status < 500 || status === 503) ? error.message : INTERNAL_ERROR_MESSAGE);
  };

  router.get('/:owner/:repo/archive/*archive', markRoute('/{owner}/{repo}/archive/{archive}'), async (req, res) => {
    try {
      const caller = await signInAsGit(config, authenticate, req, res);
      if (caller === undefined) return;
      const owner = req.params.owner ?? '';
      const name = req.params.repo ?? '';
      const found = await lookUpRepo(services, viewerOf(caller.user), owner, name).catch((error: unknown) => {
        if (isHttpError(error) && error.status === 404) return undefined;
        throw error;
      });
      if (found?.kind === 'renamed') {
        const subPath = new URL(config.server.rootUrl).pathname.replace(/\/$/, '');
        const tail = req.originalUrl.slice(req.originalUrl.indexOf('/archive/'));
        sendRedirect(req, res, 301, `${subPath}/${encodeURIComponent(found.owner)}/${encodeURIComponent(found.name)}${tail}`);
        return;
      }
      const repo = found?.value;
      // Read access as for a fetch; unlike git, a page of the web asks nobody to sign in: hidden is missing.
      const refusal = repo === undefined ? REPOSITORY_NOT_FOUND : gitAccessRefusal({ service: 'upload-pack', caller, repo, requireSigninView: config.service.requireSigninView });
      if (refusal !== undefined || repo === undefined) {
        refuse(res, refusal ?? REPOSITORY_NOT_FOUND);
        return;
      }
      const reply = await archiveReply(services, repo.repository, archiveParam(req));
      if (reply.stream === undefined) throw new Error('archiveReply answered without a stream');
      for (const [header, value] of Object.entries(reply.headers ?? {})) res.setHeader(header, value);
      await sendStream(res, reply.status, reply.stream, logger);
    } catch (error) {
      answerFailure(req, res, error);
    }
  });

  return router;
}
