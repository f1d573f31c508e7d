import { assertSubject, assertSubjectFilter, subjectFilterPattern, subjectFiltersOverlap, subjectMatches } from './subjects';

const cases: Array<[string, string, boolean]> = [
  ['cairn.user.created', 'cairn.user.created', true],
  ['cairn.user.created', 'cairn.user.deleted', false],
  ['cairn.user.*', 'cairn.user.created', true],
  ['cairn.user.*', 'cairn.user', false],
  ['cairn.user.*', 'cairn.user.email.added', false],
  ['cairn.*.created', 'cairn.repo.created', true],
  ['cairn.user.>', 'cairn.user.created', true],
  ['cairn.user.>', 'cairn.user.email.added', true],
  ['cairn.user.>', 'cairn.user', false],
  ['cairn.user.>', 'cairn.users.created', false],
  ['>', 'anything.at.all', true],
  ['cairn.user-x.*', 'cairn.user-x.created', true],
  ['cairn.user-x.*', 'cairn.userAx.created', false],
];

describe('subject filters', () => {
  it.each(cases)('%s matches %s: %s', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
    // The SQL pattern must agree (PostgreSQL and JavaScript regexes agree on these constructs).
    expect(new RegExp(subjectFilterPattern(filter)).test(subject)).toBe(expected);
  });

  it('validates filters and subjects', () => {
    expect(() => assertSubjectFilter('cairn.user.>')).not.toThrow();
    expect(() => assertSubjectFilter('cairn.>.x')).toThrow();
    expect(() => assertSubjectFilter('cairn..x')).toThrow();
    expect(() => assertSubjectFilter('cairn.us*r')).toThrow();
    expect(() => assertSubject('cairn.user.created')).not.toThrow();
    expect(() => assertSubject('cairn.user.*')).toThrow();
    expect(() => assertSubject('cairn user')).toThrow();
  });

  it('detects overlapping filters', () => {
    expect(subjectFiltersOverlap('cairn.user.>', 'cairn.user.created')).toBe(true);
    expect(subjectFiltersOverlap('cairn.user.>', 'cairn.*.created')).toBe(true);
    expect(subjectFiltersOverlap('cairn.user.>', 'cairn.access_token.>')).toBe(false);
    expect(subjectFiltersOverlap('cairn.user.*', 'cairn.user.a.b')).toBe(false);
    expect(subjectFiltersOverlap('cairn.user.>', 'cairn.user')).toBe(false);
  });
});
