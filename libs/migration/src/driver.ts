/**
 * Moves a repository's items from a downloader to an uploader in Gitea's order (services/migrations/migrate.go
 * migrateRepository): topics, milestones, labels, releases, issues with each page's comments, pull requests with each
 * page's comments and reviews; from a downloader that lists a repository's comments at once (getAllComments), the
 * comments instead follow the pull requests in one repository-wide walk (Gitea's supportAllComments), which saves a
 * request per issue and pull request. Git data is the runner's business, before this. Progress is recorded after every
 * upload so a restarted migration resumes where it stopped; the uploader is idempotent, so what a crash between an
 * upload and its record repeats is harmless.
 */
import type { Downloader, MigrationItems, Page, Uploader } from './base';

/**
 * The steps in order. `issues`/`comments` (and `pull_requests`/`reviews`) share one paged walk, as in Gitea, where a
 * page's comments follow its issues: `issues` n means page n's issues are uploaded, `comments` n that page n is
 * complete. `repo_comments` n: page n of the repository-wide comment walk is uploaded. Listed (not paged) steps count
 * items.
 */
export type MigrationStep = 'topics' | 'milestones' | 'labels' | 'releases' | 'issues' | 'comments' | 'pull_requests' | 'reviews' | 'repo_comments';

/** Every step, in order (a task row's step names one of these). */
export const MIGRATION_STEPS: readonly MigrationStep[] = ['topics', 'milestones', 'labels', 'releases', 'issues', 'comments', 'pull_requests', 'reviews', 'repo_comments'];
const STEPS = MIGRATION_STEPS;

export interface MigrationProgress {
  /** Where a resumed migration starts: the step and how many of its items (or pages, for paged steps) were done. */
  resumeFrom?: { step: MigrationStep; done: number };
  /** Called after each item batch is uploaded: persist it (the runner records it on the task row). */
  record(step: MigrationStep, done: number, message: string): Promise<void>;
}

export interface MigrateItemsOptions {
  /** Issues and pull requests per page, and items per upload batch (Gitea's downloaders use 50). */
  perPage?: number;
  signal?: AbortSignal;
}

const DEFAULT_PER_PAGE = 50;

export async function migrateItems(
  downloader: Downloader,
  uploader: Uploader,
  items: MigrationItems,
  progress: MigrationProgress,
  options: MigrateItemsOptions = {},
): Promise<void> {
  const perPage = options.perPage ?? DEFAULT_PER_PAGE;
  const signal = options.signal;
  const resume = progress.resumeFrom;
  const startAt = resume === undefined ? 0 : STEPS.indexOf(resume.step);
  /** How many of `step`'s units are already done: 0 unless the migration resumes at it. */
  const doneIn = (step: MigrationStep): number => (resume?.step === step ? Math.max(0, resume.done) : 0);
  const reached = (step: MigrationStep): boolean => STEPS.indexOf(step) >= startAt;

  /** A listed step: everything fetched at once, uploaded in batches from the recorded count on. */
  async function listed<T>(step: MigrationStep, noun: string, fetch: () => Promise<T[]>, create: (batch: T[]) => Promise<void>): Promise<void> {
    if (!reached(step)) return;
    signal?.throwIfAborted();
    const all = await fetch();
    for (let done = doneIn(step); done < all.length; ) {
      signal?.throwIfAborted();
      const batch = all.slice(done, done + perPage);
      await create(batch);
      done += batch.length;
      await progress.record(step, done, `migrated ${done} of ${all.length} ${noun}`);
    }
  }

  /**
   * A paged walk (Gitea's issue and pull request loops): each page is uploaded, recorded under `first`, then its
   * follow-up (comments, reviews) is uploaded and the page recorded under `second`. Numbers already uploaded in this
   * run are dropped from later pages (Gitea's mapInserted*Indexes: items removed at the source shift pages).
   */
  async function paged<T extends { number: number }>(
    first: MigrationStep,
    second: MigrationStep,
    noun: string,
    fetch: (page: number) => Promise<Page<T>>,
    create: (batch: T[]) => Promise<void>,
    follow: ((batch: T[]) => Promise<string>) | undefined,
  ): Promise<void> {
    if (!reached(first) && !reached(second)) return;
    // Resuming at `first` n: page n is uploaded but its follow-up is not (without one, page n is complete).
    let page = resume?.step === second ? doneIn(second) + 1 : resume?.step === first && follow === undefined ? doneIn(first) + 1 : Math.max(1, doneIn(first));
    let skipCreate = resume?.step === first && follow !== undefined && doneIn(first) > 0;
    const seen = new Set<number>();
    for (; ; page++) {
      signal?.throwIfAborted();
      const { items: fetched, isEnd } = await fetch(page);
      const batch = fetched.filter((item) => !seen.has(item.number));
      batch.forEach((item) => seen.add(item.number));
      if (!skipCreate) {
        if (batch.length > 0) await create(batch);
        await progress.record(first, page, `migrated page ${page} of ${noun} (${batch.length})`);
      }
      skipCreate = false;
      if (follow !== undefined) {
        const what = await follow(batch);
        await progress.record(second, page, `migrated ${what} of page ${page} of ${noun}`);
      }
      if (isEnd) return;
    }
  }

  /** Collects per-item children and uploads them in batches of `perPage`; answers how many were uploaded. */
  async function batched<P, C>(parents: P[], fetch: (parent: P) => Promise<C[]>, create: (batch: C[]) => Promise<void>): Promise<number> {
    let pending: C[] = [];
    let count = 0;
    const flush = async (all: boolean): Promise<void> => {
      while (pending.length >= perPage || (all && pending.length > 0)) {
        const batch = pending.slice(0, perPage);
        await create(batch);
        pending = pending.slice(batch.length);
        count += batch.length;
      }
    };
    for (const parent of parents) {
      signal?.throwIfAborted();
      pending.push(...(await fetch(parent)));
      await flush(false);
    }
    await flush(true);
    return count;
  }

  if (reached('topics')) {
    signal?.throwIfAborted();
    const topics = await downloader.getTopics();
    if (topics.length > 0) await uploader.createTopics(topics);
    await progress.record('topics', topics.length, `migrated ${topics.length} topics`);
  }
  if (items.milestones) {
    await listed('milestones', 'milestones', () => downloader.getMilestones(), (batch) => uploader.createMilestones(batch));
  }
  if (items.labels) await listed('labels', 'labels', () => downloader.getLabels(), (batch) => uploader.createLabels(batch));
  if (items.releases) {
    const fetch = async () => {
      const releases = await downloader.getReleases();
      return items.releaseAssets ? releases : releases.map((release) => ({ ...release, assets: [] }));
    };
    await listed('releases', 'releases', fetch, (batch) => uploader.createReleases(batch));
  }
  // Decided by the downloader's kind, so a resumed import walks as the interrupted one did. A task recorded at
  // `issues`/`comments` by the per-issue walk and resumed here still gets every comment: the repository-wide walk
  // brings them all (what was already taken in is left alone).
  const getAllComments = items.comments ? downloader.getAllComments?.bind(downloader) : undefined;
  if (items.issues) {
    const comments = items.comments && getAllComments === undefined
      ? async (issues: { number: number }[]) => {
          const count = await batched(issues, (issue) => downloader.getComments(issue.number), (batch) => uploader.createComments(batch));
          return `${count} comments`;
        }
      : undefined;
    await paged('issues', 'comments', 'issues', (page) => downloader.getIssues(page, perPage), (batch) => uploader.createIssues(batch), comments);
  }
  if (items.pullRequests) {
    // Gitea moves a pull request page's comments and reviews only when comments are chosen.
    const follow = items.comments
      ? async (pulls: { number: number }[]) => {
          const comments =
            getAllComments === undefined ? await batched(pulls, (pull) => downloader.getComments(pull.number), (batch) => uploader.createComments(batch)) : undefined;
          const reviews = await batched(pulls, (pull) => downloader.getReviews(pull.number), (batch) => uploader.createReviews(batch));
          return comments === undefined ? `${reviews} reviews` : `${comments} comments and ${reviews} reviews`;
        }
      : undefined;
    await paged(
      'pull_requests',
      'reviews',
      'pull requests',
      (page) => downloader.getPullRequests(page, perPage),
      (batch) => uploader.createPullRequests(batch),
      follow,
    );
  }
  if (getAllComments !== undefined && reached('repo_comments')) {
    // Comments of items not moved are left out (Gitea's github.go filterPRComments); page n recorded once uploaded,
    // so a resumed walk starts after it and a page sent again is taken in once (the uploader keys comments by id).
    for (let page = doneIn('repo_comments') + 1; ; page++) {
      signal?.throwIfAborted();
      const { items: fetched, isEnd } = await getAllComments(page, perPage);
      const batch = fetched.filter((item) => (item.onPullRequest ? items.pullRequests : items.issues)).map((item) => item.comment);
      if (batch.length > 0) await uploader.createComments(batch);
      await progress.record('repo_comments', page, `migrated page ${page} of comments (${batch.length})`);
      if (isEnd) break;
    }
  }
}
