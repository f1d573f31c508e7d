import { addUser, fakeClients, fakeWorld } from '../../test/fake-clients';
import { coalescedUsers } from './services';

describe('coalescedUsers', () => {
  it('sends the BatchGetUsers calls of one turn as one call per viewer, answering each caller its own ids', async () => {
    const world = fakeWorld();
    addUser(world, 10, 'alice');
    addUser(world, 20, 'bob');
    const base = fakeClients(world).users;
    const seen: number[][] = [];
    const users = coalescedUsers({
      ...base,
      batchGetUsers: (request, options) => {
        seen.push([...request.ids]);
        return base.batchGetUsers(request, options);
      },
    });
    const viewer = { userId: 10, isAdmin: false, isRestricted: false };
    const [a, b, c] = await Promise.all([
      users.batchGetUsers({ ids: [10], viewer: undefined }),
      users.batchGetUsers({ ids: [20, 30], viewer: undefined }),
      users.batchGetUsers({ ids: [20], viewer }),
    ]);
    expect(seen).toEqual([[10, 20, 30], [20]]);
    expect(a.users.map((user) => user.id)).toEqual([10]);
    expect(b.users.map((user) => user.id)).toEqual([20]);
    expect(c.users.map((user) => user.id)).toEqual([20]);
    // A later turn is a new call.
    await users.batchGetUsers({ ids: [10], viewer: undefined });
    expect(seen).toEqual([[10, 20, 30], [20], [10]]);
  });

  it('fails every caller of a batch when the call fails', async () => {
    const base = fakeClients(fakeWorld()).users;
    const users = coalescedUsers({ ...base, batchGetUsers: () => Promise.reject(new Error('accounts away')) });
    const answers = await Promise.allSettled([users.batchGetUsers({ ids: [1], viewer: undefined }), users.batchGetUsers({ ids: [2], viewer: undefined })]);
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
  });
});
