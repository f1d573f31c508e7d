/**
 * The dump source (Gitea's services/migrations/restore.go RepositoryRestorer): a Downloader over a directory in
 * Gitea's dump layout (`<repo_dir>` holding repo.yml, as `gitea dump-repo` writes it under `<owner>/<repo>/`), with
 * the record readers of dump-format.ts. A missing file is an empty list, as Gitea's restorer has it; lists are paged
 * by slicing, so a resumed restore sees the same pages. Every path a dump names (patches, release assets) must stay
 * inside the directory: the dump may come from anyone.
 */
import { createReadStream } from 'node:fs';
import { readFile, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { parse } from 'yaml';
import type { Comment, Downloader, Issue, Label, Milestone, MigrationRepository, Page, PullRequest, Release, ReleaseAsset, Review } from './base';
import {
  DUMP_PATHS,
  type DumpRepoInfo,
  commentFromRecord,
  issueFromRecord,
  labelFromRecord,
  listOf,
  milestoneFromRecord,
  pullRequestFromRecord,
  releaseFromRecord,
  repoFromRecord,
  reviewFromRecord,
  topicsFromRecord,
} from './dump-format';
import { DUMP_SCHEMAS, schemaViolation } from './dump-schemas';

/** A dump file that cannot be read as Gitea's format, or fails `--validation`: names the file and what is wrong. */
export class DumpFormatError extends Error {
  override name = 'DumpFormatError';
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
  }
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

export interface DumpDownloaderOptions {
  /** Check issue.yml, milestone.yml and label.yml against Gitea's schemas first (`--validation`). */
  validation?: boolean;
}

export class DumpDownloader implements Downloader {
  private readonly cache = new Map<string, Promise<unknown>>();

  private constructor(readonly dir: string) {}

  /** Opens the dump at `dir` (repo.yml must be there); with `validation`, refuses a dump Gitea's schemas refuse. */
  static async open(dir: string, options: DumpDownloaderOptions = {}): Promise<DumpDownloader> {
    const downloader = new DumpDownloader(await realpath(path.resolve(dir)));
    await downloader.repoInfo();
    if (options.validation) await downloader.validate();
    return downloader;
  }

  /** repo.yml as the dump has it (its service, the units it was dumped with). */
  async repoInfo(): Promise<DumpRepoInfo & { defaultBranch: string }> {
    const value = await this.yaml(DUMP_PATHS.repo, { required: true });
    return repoFromRecord(value);
  }

  /** Gitea's file_format.go validate, for every file that has a schema (a missing file passes). */
  async validate(): Promise<void> {
    for (const [file, schema] of Object.entries(DUMP_SCHEMAS)) {
      const value = await this.yaml(file);
      if (value === undefined || value === null) continue;
      const problem = schemaViolation(schema, value, '');
      if (problem !== undefined) throw new DumpFormatError(file, `validation failed: ${problem.replace(/^: /, '').replace(/^([[.])/, 'item $1')}`);
    }
  }

  /** A path the dump names, resolved inside the dump (or a DumpFormatError). */
  async inside(relative: string, file: string): Promise<string> {
    const clean = relative.replace(/^file:\/\//, '');
    const target = path.resolve(this.dir, clean);
    const real = await realpath(target).catch((error: unknown) => {
      if (isMissing(error)) return target;
      throw error;
    });
    if (path.isAbsolute(clean) || !real.startsWith(this.dir + path.sep)) throw new DumpFormatError(file, `${JSON.stringify(relative)} is outside the dump`);
    return real;
  }

  private yaml(file: string, options: { required?: boolean } = {}): Promise<unknown> {
    let loaded = this.cache.get(file);
    if (loaded === undefined) {
      loaded = (async () => {
        let text: string;
        try {
          text = await readFile(path.join(this.dir, file), 'utf8');
        } catch (error) {
          if (isMissing(error) && !options.required) return undefined;
          if (isMissing(error)) throw new DumpFormatError(file, `not found in ${this.dir}`);
          throw error;
        }
        try {
          return parse(text, { uniqueKeys: false, maxAliasCount: 100 }) as unknown;
        } catch (error) {
          throw new DumpFormatError(file, `not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
        }
      })();
      this.cache.set(file, loaded);
    }
    return loaded;
  }

  private async list<T>(file: string, read: (record: Record<string, unknown>) => T): Promise<T[]> {
    try {
      return listOf(await this.yaml(file)).map(read);
    } catch (error) {
      if (error instanceof DumpFormatError) throw error;
      throw new DumpFormatError(file, error instanceof Error ? error.message : String(error));
    }
  }

  private page<T>(all: T[], page: number, perPage: number): Page<T> {
    const start = (Math.max(page, 1) - 1) * perPage;
    return { items: all.slice(start, start + perPage), isEnd: start + perPage >= all.length };
  }

  async getRepoInfo(): Promise<MigrationRepository> {
    const repo = await this.repoInfo();
    return {
      name: repo.name,
      owner: repo.owner,
      isPrivate: repo.isPrivate,
      isMirror: false,
      description: repo.description,
      cloneUrl: path.join(this.dir, DUMP_PATHS.git),
      originalUrl: repo.originalUrl,
      defaultBranch: repo.defaultBranch,
    };
  }

  async getTopics(): Promise<string[]> {
    return topicsFromRecord(await this.yaml(DUMP_PATHS.topics));
  }

  getMilestones(): Promise<Milestone[]> {
    return this.list(DUMP_PATHS.milestones, milestoneFromRecord);
  }

  getReleases(): Promise<Release[]> {
    return this.list(DUMP_PATHS.releases, releaseFromRecord);
  }

  getLabels(): Promise<Label[]> {
    return this.list(DUMP_PATHS.labels, labelFromRecord);
  }

  async getIssues(page: number, perPage: number): Promise<Page<Issue>> {
    return this.page(await this.list(DUMP_PATHS.issues, issueFromRecord), page, perPage);
  }

  getComments(issueNumber: number): Promise<Comment[]> {
    return this.list(`${DUMP_PATHS.comments}/${issueNumber}.yml`, commentFromRecord);
  }

  async getPullRequests(page: number, perPage: number): Promise<Page<PullRequest>> {
    return this.page(await this.list(DUMP_PATHS.pullRequests, pullRequestFromRecord), page, perPage);
  }

  getReviews(pullNumber: number): Promise<Review[]> {
    return this.list(`${DUMP_PATHS.reviews}/${pullNumber}.yml`, reviewFromRecord);
  }

  /** An asset's file: its download_url is a path inside the dump (`release_assets/…`, Gitea's dumper writes it so). */
  async openReleaseAsset(asset: ReleaseAsset): Promise<Readable> {
    if (asset.downloadUrl === undefined || asset.downloadUrl === '') throw new DumpFormatError(DUMP_PATHS.releases, `asset ${asset.name} has no file`);
    const file = await this.inside(asset.downloadUrl, DUMP_PATHS.releases);
    const stream = createReadStream(file);
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', (error) => reject(isMissing(error) ? new DumpFormatError(DUMP_PATHS.releases, `asset file ${asset.downloadUrl} is missing`) : error));
    });
    return stream;
  }

  /** `git/pulls/<n>.patch` (the pull request's patch_url in the dump); undefined when the dump has none. */
  async getPullPatch(pull: PullRequest): Promise<Buffer | undefined> {
    const relative = pull.patchUrl !== '' ? pull.patchUrl : `${DUMP_PATHS.pullPatches}/${pull.number}.patch`;
    const file = await this.inside(relative, DUMP_PATHS.pullRequests);
    return readFile(file).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
  }

  /** The numbers of the issues and pull requests that have comment files (for checks and tests). */
  async commentFiles(): Promise<number[]> {
    const names = await readdir(path.join(this.dir, DUMP_PATHS.comments)).catch((error: unknown) => (isMissing(error) ? [] : Promise.reject(error)));
    return names.map((name) => /^(\d+)\.yml$/.exec(name)).flatMap((match) => (match === null ? [] : [Number(match[1])]));
  }
}
