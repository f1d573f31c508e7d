/**
 * A repository's licences (Gitea's repo_license): what git-storage's DetectLicenses finds on the default branch,
 * recorded at creation and fork, and again after a push that moves the default branch — not after pushes to
 * other branches.
 */
import { encodeEvent, uuidv7, type BusHandler } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { gitPushedHandler } from '../src/events/git-consumer';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('licences', () => {
  let h: ReposHarness;
  let git: BusHandler;
  let alice: number;

  beforeAll(async () => {
    h = await startReposHarness();
    git = gitPushedHandler(h.context);
    alice = h.accounts.addUser('alice');
  });

  afterAll(async () => {
    await h?.stop();
  });

  const push = (repoId: number, branch: string) =>
    git({
      id: uuidv7(),
      subject: 'cairn.git.pushed',
      data: encodeEvent(
        GitPushed,
        GitPushed.fromPartial({ pusherId: alice, repoId, refUpdates: [{ ref: `refs/heads/${branch}`, oldSha: 'a'.repeat(40), newSha: 'b'.repeat(40) }] }),
      ),
      deliveryCount: 1,
    });
  const licensesOf = async (name: string) => (await h.repos.getRepository({ viewer: h.accounts.actor(alice), id: 0, owner: 'alice', name })).repository?.repository?.licenses;

  it('are recorded when an auto-initialised repository is created, and none for an empty one', async () => {
    const created = await h.create(alice, { name: 'mit', autoInit: true, license: 'MIT' });
    expect(created.repository.licenses).toEqual(['MIT']);
    expect(await licensesOf('mit')).toEqual(['MIT']);
    expect((await h.create(alice, { name: 'empty', license: 'MIT' })).repository.licenses).toEqual([]);
  });

  it('are detected again after a push to the default branch only', async () => {
    const { repository } = await h.create(alice, { name: 'relicensed', autoInit: true, license: 'MIT' });
    h.git.setLicenses(repository.id, ['Apache-2.0']);
    h.git.push(repository.id, 'topic');
    await push(repository.id, 'topic');
    expect(await licensesOf('relicensed')).toEqual(['MIT']);
    await push(repository.id, 'main');
    expect(await licensesOf('relicensed')).toEqual(['Apache-2.0']);
    // Delivered again: the same answer.
    await push(repository.id, 'main');
    expect(await licensesOf('relicensed')).toEqual(['Apache-2.0']);
  });

  it("are copied with a fork's branches", async () => {
    const { repository } = await h.create(alice, { name: 'upstream', autoInit: true, license: 'ISC' });
    const bob = h.accounts.addUser('bob');
    const fork = await h.repos.forkRepository({ actor: h.accounts.actor(bob), id: repository.id, organization: '', name: '' });
    expect(fork.repository?.repository?.licenses).toEqual(['ISC']);
  });
});
