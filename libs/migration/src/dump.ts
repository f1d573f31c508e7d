/**
 * The dump destination (Gitea's services/migrations/dump.go RepositoryDumper): an Uploader that writes a repository's
 * items to `<repo_dir>/<owner>/<repo>/` in Gitea's dump format (dump-format.ts). Each batch is appended to its file,
 * as Gitea does, so the batches of one list make one YAML list. Git data (`git/`) is the caller's: it is not an item.
 */
import { createWriteStream } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Comment, Issue, Label, Milestone, PullRequest, Release, ReleaseAsset, Review, Uploader } from './base';
import { AssetPaths, assetFile } from './dump-assets';
import {
  DUMP_PATHS,
  type DumpRecord,
  type DumpRepoInfo,
  commentRecord,
  dumpYaml,
  issueRecord,
  labelRecord,
  milestoneRecord,
  pullRequestRecord,
  releaseRecord,
  repoRecord,
  reviewRecord,
  topicsRecord,
} from './dump-format';

export interface DumpUploaderOptions {
  /** `<repo_dir>/<owner>/<repo>`: created if missing. */
  dir: string;
  /** A pull request's patch (from its patchUrl at the source), written to `git/pulls/<number>.patch`. */
  readPatch(pull: PullRequest): Promise<Buffer>;
  /**
   * A release asset's bytes (Downloader.openReleaseAsset), written to `release_assets/<tag>/<name>`
   * (dump-assets.ts). Without it, releases are written with their assets' source URLs and no files.
   */
  openAsset?(asset: ReleaseAsset): Promise<Readable>;
}

export class DumpUploader implements Uploader {
  private readonly assetPaths = new AssetPaths();

  private constructor(private readonly options: DumpUploaderOptions) {}

  static async create(options: DumpUploaderOptions): Promise<DumpUploader> {
    await mkdir(options.dir, { recursive: true });
    return new DumpUploader(options);
  }

  get dir(): string {
    return this.options.dir;
  }

  /** Where the git data goes (`git/`, a bare mirror). */
  get gitDir(): string {
    return path.join(this.options.dir, DUMP_PATHS.git);
  }

  private file(name: string): string {
    return path.join(this.options.dir, name);
  }

  private async append(name: string, records: DumpRecord[]): Promise<void> {
    if (records.length > 0) await appendFile(this.file(name), dumpYaml(records));
  }

  /** Items of many issues, each issue's in `<dir>/<number>.yml` (dump.go createItems). */
  private async appendPerIssue<T extends { issueIndex: number }>(dir: string, items: T[], record: (item: T) => DumpRecord): Promise<void> {
    await mkdir(this.file(dir), { recursive: true });
    const byIssue = new Map<number, DumpRecord[]>();
    for (const item of items) byIssue.set(item.issueIndex, [...(byIssue.get(item.issueIndex) ?? []), record(item)]);
    for (const [number, records] of byIssue) await this.append(path.join(dir, `${number}.yml`), records);
  }

  /** repo.yml (dump.go CreateRepo). */
  async writeRepo(repo: DumpRepoInfo): Promise<void> {
    await writeFile(this.file(DUMP_PATHS.repo), dumpYaml(repoRecord(repo)));
  }

  async createTopics(topics: string[]): Promise<void> {
    await writeFile(this.file(DUMP_PATHS.topics), dumpYaml(topicsRecord(topics)));
  }

  createMilestones(milestones: Milestone[]): Promise<void> {
    return this.append(DUMP_PATHS.milestones, milestones.map(milestoneRecord));
  }

  createLabels(labels: Label[]): Promise<void> {
    return this.append(DUMP_PATHS.labels, labels.map(labelRecord));
  }

  /**
   * Each asset streamed to `release_assets/<tag>/<name>` and its download_url pointing there (dump.go CreateReleases;
   * the driver passes releases without assets unless release assets are chosen).
   */
  async createReleases(releases: Release[]): Promise<void> {
    const open = this.options.openAsset;
    const written: Release[] = [];
    for (const release of releases) {
      if (open === undefined || release.assets.length === 0) {
        written.push(release);
        continue;
      }
      const assets: ReleaseAsset[] = [];
      for (const asset of release.assets) {
        const relative = this.assetPaths.next(release.tagName, asset);
        const file = assetFile(this.options.dir, relative);
        await mkdir(path.dirname(file), { recursive: true });
        const output = createWriteStream(file);
        await pipeline(await open(asset), output);
        assets.push({ ...asset, size: asset.size ?? output.bytesWritten, downloadUrl: relative });
      }
      written.push({ ...release, assets });
    }
    await this.append(DUMP_PATHS.releases, written.map(releaseRecord));
  }

  createIssues(issues: Issue[]): Promise<void> {
    return this.append(DUMP_PATHS.issues, issues.map(issueRecord));
  }

  createComments(comments: Comment[]): Promise<void> {
    return this.appendPerIssue(DUMP_PATHS.comments, comments, commentRecord);
  }

  /**
   * Each patch to `git/pulls/<number>.patch` and patch_url pointing at it (dump.go handlePullRequest); head and base
   * are the source repository's, whose refs/pull/<n>/head the mirror of the git data holds.
   */
  async createPullRequests(pulls: PullRequest[]): Promise<void> {
    await mkdir(this.file(DUMP_PATHS.pullPatches), { recursive: true });
    const records: DumpRecord[] = [];
    for (const pull of pulls) {
      const patchPath = `${DUMP_PATHS.pullPatches}/${pull.number}.patch`;
      await writeFile(this.file(patchPath), await this.options.readPatch(pull));
      records.push(pullRequestRecord({ ...pull, patchUrl: patchPath }, true));
    }
    await this.append(DUMP_PATHS.pullRequests, records);
  }

  createReviews(reviews: Review[]): Promise<void> {
    return this.appendPerIssue(DUMP_PATHS.reviews, reviews, reviewRecord);
  }
}
