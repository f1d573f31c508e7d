import { go, goStruct } from './binding';

const CreateUserOption = goStruct('CreateUserOption', {
  source_id: go.int64('SourceID'),
  login_name: go.string('LoginName'),
  username: go.string('Username', { required: true, maxSize: 40 }),
  full_name: go.string('FullName', { maxSize: 100 }),
  email: go.string('Email', { required: true, email: true, maxSize: 254 }),
  must_change_password: go.boolPtr('MustChangePassword'),
  visibility: go.string('Visibility', { in: ['', 'public', 'limited', 'private'] }),
  created_at: go.timePtr('Created'),
});

const EditOption = goStruct('EditUserOption', {
  email: go.stringPtr('Email', { maxSize: 5 }),
  website: go.stringPtr('Website', { url: true }),
  max_repo_creation: go.int64Ptr('MaxRepoCreation'),
  scopes: go.stringSlice('Scopes'),
});

describe('goStruct.bind', () => {
  it('reads a valid body, with Go zero values for absent fields', () => {
    const result = CreateUserOption.bind({ username: 'alice', email: 'alice@example.com' });
    expect(result).toEqual({
      ok: true,
      value: {
        source_id: 0,
        login_name: '',
        username: 'alice',
        full_name: '',
        email: 'alice@example.com',
        must_change_password: undefined,
        visibility: '',
        created_at: undefined,
      },
    });
  });

  it('reads an empty body as {} and reports the first rule failure in field order', () => {
    expect(CreateUserOption.bind(undefined)).toEqual({ ok: false, message: '[Username]: Required' });
    expect(CreateUserOption.bind({ username: 'alice' })).toEqual({ ok: false, message: '[Email]: Required' });
    expect(CreateUserOption.bind(null)).toEqual({ ok: false, message: '[Username]: Required' });
  });

  it('checks MaxSize in characters, Email and In', () => {
    expect(CreateUserOption.bind({ username: 'a'.repeat(41), email: 'a@b.c' })).toEqual({ ok: false, message: '[Username]: MaxSize' });
    expect(CreateUserOption.bind({ username: '✓'.repeat(40), email: 'a@b.c' }).ok).toBe(true);
    expect(CreateUserOption.bind({ username: 'a', email: 'not-an-email' })).toEqual({ ok: false, message: '[Email]: Email' });
    expect(CreateUserOption.bind({ username: 'a', email: 'a@b.c', visibility: 'secret' })).toEqual({
      ok: false,
      message: '[Visibility]: In',
    });
  });

  it('checks Email as go-chi/binding does, in linear time on a hostile 1 MB address', () => {
    const isEmail = (email: string) => CreateUserOption.bind({ username: 'a', email }).ok;
    // Unanchored, as Go's MatchString: an address anywhere in the text will do.
    for (const email of ['a@b.c', 'x y a@b.c z', 'a.b@c-d.e1', 'a@b.c.', '!@1.a', 'a@b-c.d']) expect([email, isEmail(email)]).toEqual([email, true]);
    for (const email of ['@b.c', 'a@b', 'a@.b', 'a@-b.c', 'a@b-.c', 'a @b.c', 'a@b._', 'a.@b']) expect([email, isEmail(email)]).toEqual([email, false]);
    // A backtracking engine tried the domain from every start in the local part: minutes here.
    const started = performance.now();
    const hostile = CreateUserOption.bind({ username: 'a', email: `${'a'.repeat(1 << 19)}@${'a-'.repeat(1 << 18)}` });
    expect(hostile.ok).toBe(false);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('reports a JSON value of the wrong type as Go does, before any rule', () => {
    expect(CreateUserOption.bind({ username: 12, email: 'a@b.c' })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal number into Go struct field CreateUserOption.username of type string',
    });
    expect(CreateUserOption.bind({ source_id: '1' })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal string into Go struct field CreateUserOption.source_id of type int64',
    });
    expect(CreateUserOption.bind({ source_id: 1.5, username: 'a', email: 'a@b.c' })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal number 1.5 into Go struct field CreateUserOption.source_id of type int64',
    });
    expect(CreateUserOption.bind({ must_change_password: 'yes' })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal string into Go struct field CreateUserOption.must_change_password of type bool',
    });
    expect(EditOption.bind({ scopes: 'all' })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal string into Go struct field EditUserOption.scopes of type []string',
    });
    expect(EditOption.bind({ scopes: ['all', 3] })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal number into Go struct field EditUserOption.scopes of type string',
    });
    expect(CreateUserOption.bind({ created_at: 'yesterday' })).toEqual({
      ok: false,
      message: '[]: parsing time "\\"yesterday\\"" as "\\"2006-01-02T15:04:05Z07:00\\""',
    });
  });

  it('refuses a body that is not an object', () => {
    expect(CreateUserOption.bind([])).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal array into Go value of type structs.CreateUserOption',
    });
    expect(CreateUserOption.bind('x')).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal string into Go value of type structs.CreateUserOption',
    });
  });

  it('matches keys case-insensitively, later keys winning, and ignores unknown keys', () => {
    const result = CreateUserOption.bind({ UserName: 'bob', EMAIL: 'b@x.y', extra: true });
    expect(result.ok && result.value.username).toBe('bob');
    expect(result.ok && result.value.email).toBe('b@x.y');
    const twice = CreateUserOption.bind({ username: 'first', Username: 'second', email: 'b@x.y' });
    expect(twice.ok && twice.value.username).toBe('second');
  });

  it('reads null as absent and keeps pointer fields undefined unless given', () => {
    const result = EditOption.bind({ email: null, max_repo_creation: -1 });
    expect(result).toEqual({ ok: true, value: { email: undefined, website: undefined, max_repo_creation: -1, scopes: [] } });
    expect(EditOption.bind({ email: '' })).toEqual({ ok: true, value: { email: '', website: undefined, max_repo_creation: undefined, scopes: [] } });
  });

  it('applies rules to given pointer values only', () => {
    expect(EditOption.bind({ email: 'toolong' })).toEqual({ ok: false, message: '[Email]: MaxSize' });
    expect(EditOption.bind({ website: 'ftp://x' })).toEqual({ ok: false, message: '[Website]: Url' });
    expect(EditOption.bind({ website: '' }).ok).toBe(true);
    expect(EditOption.bind({ website: 'https://example.com' }).ok).toBe(true);
  });

  it('parses RFC 3339 times', () => {
    const result = CreateUserOption.bind({ username: 'a', email: 'a@b.c', created_at: '2020-01-02T03:04:05+01:00' });
    expect(result.ok && result.value.created_at?.toISOString()).toBe('2020-01-02T02:04:05.000Z');
  });

  it('supports Required on slices', () => {
    const Option = goStruct('X', { list: go.stringSlice('List', { required: true }) });
    expect(Option.bind({ list: [] })).toEqual({ ok: false, message: '[List]: Required' });
    expect(Option.bind({ list: ['a'] })).toEqual({ ok: true, value: { list: ['a'] } });
  });

  it("checks Gitea's Username and AlphaDashDot rules after Required and before MaxSize", () => {
    const Option = goStruct('CreateOrgOption', {
      username: go.string('UserName', { required: true, username: true, maxSize: 40 }),
      team: go.string('Name', { alphaDashDot: true }),
    });
    expect(Option.bind({})).toEqual({ ok: false, message: '[UserName]: Required' });
    for (const bad of ['bad name', '-lead', 'trail.', 'two..dots', 'ünï']) {
      expect(Option.bind({ username: bad })).toEqual({ ok: false, message: '[UserName]: invalid username' });
    }
    expect(Option.bind({ username: 'a'.repeat(41) })).toEqual({ ok: false, message: '[UserName]: MaxSize' });
    expect(Option.bind({ username: 'Good_Name.1' }).ok).toBe(true);
    expect(Option.bind({ username: 'ok', team: 'no spaces' })).toEqual({ ok: false, message: '[Name]: AlphaDashDot' });
    expect(Option.bind({ username: 'ok', team: 'dev-team_1.x' }).ok).toBe(true);
    expect(Option.bind({ username: 'ok', team: '' }).ok).toBe(true);
  });

  it('reads a map of strings as Go does', () => {
    const Option = goStruct('CreateTeamOption', { units_map: go.stringMap('UnitsMap') });
    expect(Option.bind({})).toEqual({ ok: true, value: { units_map: {} } });
    expect(Option.bind({ units_map: { 'repo.code': 'read' } })).toEqual({ ok: true, value: { units_map: { 'repo.code': 'read' } } });
    expect(Option.bind({ units_map: ['repo.code'] })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal array into Go struct field CreateTeamOption.units_map of type map[string]string',
    });
    expect(Option.bind({ units_map: { 'repo.code': 1 } })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal number into Go struct field CreateTeamOption.units_map of type string',
    });
  });

  it("checks Gitea's GitRefName rule on given names only", () => {
    const Option = goStruct('CreateBranchRepoOption', {
      new_branch_name: go.string('BranchName', { required: true, gitRefName: true, maxSize: 100 }),
      old_ref_name: go.string('OldRefName', { gitRefName: true }),
    });
    expect(Option.bind({ new_branch_name: 'feature/x-1.2' }).ok).toBe(true);
    expect(Option.bind({})).toEqual({ ok: false, message: '[BranchName]: Required' });
    for (const bad of ['a..b', 'a b', 'a\u0001b', '-x', '/x', 'x/', 'x.lock', '.x', 'a/.b', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[b', 'a\\b', 'a@{1}', 'a//b', 'x.', '@']) {
      expect(Option.bind({ new_branch_name: bad })).toEqual({ ok: false, message: '[BranchName]: GitRefName' });
    }
    expect(Option.bind({ new_branch_name: 'ok', old_ref_name: 'a..b' })).toEqual({ ok: false, message: '[OldRefName]: GitRefName' });
  });

  it('tells an absent slice from an empty one, and reads int64 slices', () => {
    const Option = goStruct('EditBranchProtectionOption', { push_whitelist_usernames: go.stringSlicePtr('PushWhitelistUsernames'), ids: go.int64Slice('IDs') });
    expect(Option.bind({})).toEqual({ ok: true, value: { push_whitelist_usernames: undefined, ids: [] } });
    expect(Option.bind({ push_whitelist_usernames: [], ids: [3, 1] })).toEqual({ ok: true, value: { push_whitelist_usernames: [], ids: [3, 1] } });
    expect(Option.bind({ ids: [1.5] })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal number 1.5 into Go struct field EditBranchProtectionOption.ids of type int64',
    });
  });
});

describe('go.structPtr', () => {
  const EditRepoOption = goStruct('EditRepoOption', {
    has_issues: go.boolPtr('HasIssues'),
    internal_tracker: go.structPtr('InternalTracker', 'structs.InternalTracker', {
      enable_time_tracker: go.bool('EnableTimeTracker'),
      enable_issue_dependencies: go.bool('EnableIssueDependencies'),
    }),
  });

  it('reads a nested struct with zero values for its absent fields, and absent or null as undefined', () => {
    expect(EditRepoOption.bind({ internal_tracker: { Enable_Time_Tracker: true } })).toEqual({
      ok: true,
      value: { has_issues: undefined, internal_tracker: { enable_time_tracker: true, enable_issue_dependencies: false } },
    });
    expect(EditRepoOption.bind({ internal_tracker: null })).toEqual({ ok: true, value: { has_issues: undefined, internal_tracker: undefined } });
  });

  it('names the nested field in a type error, as encoding/json does', () => {
    expect(EditRepoOption.bind({ internal_tracker: { enable_issue_dependencies: 'yes' } })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal string into Go struct field EditRepoOption.internal_tracker.enable_issue_dependencies of type bool',
    });
    expect(EditRepoOption.bind({ internal_tracker: [] })).toEqual({
      ok: false,
      message: '[]: json: cannot unmarshal array into Go struct field EditRepoOption.internal_tracker of type structs.InternalTracker',
    });
  });
});
