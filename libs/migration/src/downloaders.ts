/**
 * The sources whose items Cairn reads (Gitea's services/migrations factories, one per GitServiceType). `git` has no
 * items (git data only); a service not listed here is refused by the callers that need items.
 */
import type { OutboundPolicy, Resolver } from '@cairn/outbound';
import type { Downloader } from './base';
import type { GitServiceName } from './dump-format';
import { createGiteaDownloader } from './gitea-downloader';
import { createGitlabDownloader } from './gitlab-downloader';
import { createGithubDownloader } from './github-downloader';

export interface DownloaderOptions {
  /** The source repository's web address as the user gave it (e.g. https://host/alice/tools(.git)). */
  cloneAddr: string;
  auth: { username: string; password: string; token: string };
  policy: OutboundPolicy; // migrationPolicy(config.migrations)
  resolver?: Resolver;
  timeoutMs?: number;
}

type Factory = (options: DownloaderOptions) => Promise<Downloader>;

const FACTORIES: Partial<Record<GitServiceName, Factory>> = {
  gitea: createGiteaDownloader,
  // Gitea's gogs downloader reads the same API v1 (createGiteaDownloader recognizes gogs by its missing /version).
  gogs: createGiteaDownloader,
  gitlab: createGitlabDownloader,
  github: createGithubDownloader,
};

/** The services whose items (issues, releases, …) can be migrated. */
export const ITEM_SERVICES: readonly GitServiceName[] = Object.keys(FACTORIES) as GitServiceName[];

export function hasItems(service: string): service is GitServiceName {
  return (ITEM_SERVICES as readonly string[]).includes(service);
}

/** The downloader of `service` (one of ITEM_SERVICES). */
export function createDownloader(service: GitServiceName, options: DownloaderOptions): Promise<Downloader> {
  const factory = FACTORIES[service];
  if (factory === undefined) throw new Error(`no downloader reads ${service} sources`);
  return factory(options);
}
