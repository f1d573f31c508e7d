/** Gitea's Reaction shape (reaction.ts): users from one accounts batch, the Ghost user for a deleted one. */
import { loadConfig } from '@cairn/config';
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { BatchGetUsersRequest } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { toApiReactions } from './reaction';
import type { ConvertClients } from './services';

const { config } = loadConfig({ env: { CAIRN_WORK_DIR: '/nonexistent-cairn-work-dir' } });

function servicesWith(users: User[]) {
  const asked: BatchGetUsersRequest[] = [];
  const batchGetUsers = async (request: BatchGetUsersRequest) => {
    asked.push(request);
    return { users: users.filter((user) => request.ids.includes(user.id)) };
  };
  // Only batchGetUsers is called.
  const clients = { users: { batchGetUsers } as unknown as ConvertClients['users'] };
  return { services: { config, clients }, asked };
}

test('hydrates every user with one batch, keeps the order, shows a deleted user as Ghost and a migrated original author as Gitea\'s replacement user', async () => {
  const bob = User.fromPartial({ id: 2, login: 'bob', visibility: 'public', created: new Date('2024-01-01T00:00:00Z') });
  const { services, asked } = servicesWith([bob]);
  const created = new Date('2024-05-01T10:00:00.750Z');
  const reactions = [
    { userId: 2, userName: 'bob', content: '+1', created, originalAuthor: '', originalService: '' },
    { userId: 9, userName: 'gone', content: 'heart', created, originalAuthor: '', originalService: '' },
    { userId: 2, userName: 'bob', content: 'eyes', created, originalAuthor: '', originalService: '' },
    { userId: 2, userName: 'bob', content: 'rocket', created, originalAuthor: 'carol', originalService: 'gitea' },
  ];
  const viewer = { userId: 1, isAdmin: false, isRestricted: false };
  const answer = await toApiReactions(services, viewer, reactions);
  expect(asked).toEqual([{ ids: [2, 9], viewer }]);
  expect(answer.map((r) => [r.user.id, r.user.login, r.content, r.created_at])).toEqual([
    [2, 'bob', '+1', '2024-05-01T10:00:00Z'],
    [-1, 'Ghost', 'heart', '2024-05-01T10:00:00Z'],
    [2, 'bob', 'eyes', '2024-05-01T10:00:00Z'],
    [-1, 'carol(gitea)', 'rocket', '2024-05-01T10:00:00Z'],
  ]);
  expect(Object.keys(answer[0])).toEqual(['user', 'content', 'created_at']);
});

test('asks accounts nothing for an empty list', async () => {
  const { services, asked } = servicesWith([]);
  expect(await toApiReactions(services, undefined, [])).toEqual([]);
  expect(asked).toEqual([]);
});
