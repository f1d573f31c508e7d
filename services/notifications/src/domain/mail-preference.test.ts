import type { MailReason } from '../mail/jobs';
import { mayReceiveMail, preferenceAllows } from './mail-preference';

const REASONS: MailReason[] = ['participant', 'watcher', 'mention', 'assignee', 'reviewer', 'own', 'transfer'];

describe('preferenceAllows', () => {
  it.each([
    ['enabled', ['participant', 'watcher', 'mention', 'assignee', 'reviewer', 'transfer']],
    ['onmention', ['mention', 'transfer']],
    ['disabled', ['transfer']],
    ['andyourown', REASONS],
    ['', ['transfer']],
  ])('%s lets through %j', (preference, allowed) => {
    expect(REASONS.filter((reason) => preferenceAllows(preference, reason))).toEqual(allowed);
  });
});

describe('mayReceiveMail', () => {
  const user = { active: true, prohibitLogin: false, email: 'a@example.com', type: 0 };
  it('takes active individual users who may sign in and have an address', () => {
    expect(mayReceiveMail(user)).toBe(true);
    expect(mayReceiveMail({ ...user, active: false })).toBe(false);
    expect(mayReceiveMail({ ...user, prohibitLogin: true })).toBe(false);
    expect(mayReceiveMail({ ...user, email: '' })).toBe(false);
    expect(mayReceiveMail({ ...user, type: 1 })).toBe(false);
  });
});
