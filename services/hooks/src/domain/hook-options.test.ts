import { Code } from '@cairn/rpc';
import { type CreateHookInput, type EditHookInput, type HookDefinition, hookAfterEdit, hookFromCreate, normalisedEvents } from './hook-options';

function create(overrides: Partial<CreateHookInput> = {}): CreateHookInput {
  return {
    type: 'gitea',
    config: { url: 'https://example.com/hook', content_type: 'json' },
    events: undefined,
    branchFilter: '',
    authorizationHeader: '',
    active: false,
    name: '',
    ...overrides,
  };
}

function edit(overrides: Partial<EditHookInput> = {}): EditHookInput {
  return { config: {}, events: undefined, branchFilter: undefined, authorizationHeader: undefined, active: undefined, name: undefined, ...overrides };
}

function refusal(work: () => unknown): { code: Code; message: string; reason: string | undefined } {
  try {
    work();
  } catch (error) {
    const { code, message, reason } = error as { code: Code; message: string; reason: string | undefined };
    return { code, message, reason };
  }
  throw new Error('accepted');
}

describe('hookFromCreate', () => {
  it('takes Gitea defaults: events ["push"], inactive, POST, no secret', () => {
    expect(hookFromCreate(create())).toEqual<HookDefinition>({
      type: 'gitea',
      name: '',
      url: 'https://example.com/hook',
      httpMethod: 'POST',
      contentType: 'json',
      secret: '',
      meta: {},
      events: ['push'],
      branchFilter: '',
      authorizationHeader: '',
      active: false,
    });
    expect(hookFromCreate(create({ events: [] })).events).toEqual(['push']);
  });

  it('keeps the secret and http_method in their columns and the type’s own keys in meta', () => {
    const hook = hookFromCreate(
      create({ type: 'matrix', config: { url: 'http://h/x', content_type: 'form', secret: 's3', http_method: 'put', room_id: '!r', is_system_webhook: 'true' } }),
    );
    expect(hook).toMatchObject({ secret: 's3', httpMethod: 'PUT', contentType: 'form', meta: { room_id: '!r' } });
  });

  it('refuses in Gitea’s order with Gitea’s messages', () => {
    expect(refusal(() => hookFromCreate(create({ type: 'jenkins' })))).toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid hook type: jenkins' });
    expect(refusal(() => hookFromCreate(create({ type: 'jenkins', config: {} }))).message).toBe('Invalid hook type: jenkins');
    expect(refusal(() => hookFromCreate(create({ config: { content_type: 'json' } }))).message).toBe('Missing config option: url');
    expect(refusal(() => hookFromCreate(create({ config: { url: 'http://h' } }))).message).toBe('Missing config option: content_type');
    expect(refusal(() => hookFromCreate(create({ config: { url: 'nope', content_type: 'xml' } }))).message).toBe('Invalid content type');
    for (const url of ['nope', '/relative', 'ftp://h/x', 'javascript:alert(1)']) {
      expect(refusal(() => hookFromCreate(create({ config: { url, content_type: 'json' } })))).toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid url' });
    }
    expect(refusal(() => hookFromCreate(create({ config: { url: 'http://h', content_type: 'json', http_method: 'DELETE' } }))).message).toBe('Invalid http method: DELETE');
  });

  it('checks the branch filter as a glob', () => {
    expect(hookFromCreate(create({ branchFilter: '{main,release/*}' })).branchFilter).toBe('{main,release/*}');
    expect(refusal(() => hookFromCreate(create({ branchFilter: '[main' })))).toMatchObject({ code: Code.INVALID_ARGUMENT, message: '[BranchFilter]: GlobPattern' });
  });

  it('requires a slack channel (422) that is more than a lone # (400 by its reason)', () => {
    const slack = (config: Record<string, string>) => create({ type: 'slack', config: { url: 'https://hooks.slack.com/x', content_type: 'json', ...config } });
    expect(refusal(() => hookFromCreate(slack({})))).toMatchObject({ message: 'Missing config option: channel', reason: 'missing_hook_config' });
    expect(refusal(() => hookFromCreate(slack({ channel: ' # ' })))).toMatchObject({ message: 'Invalid slack channel name', reason: 'invalid_slack_channel' });
    expect(refusal(() => hookFromCreate(slack({ channel: '  ' })))).toMatchObject({ reason: 'invalid_slack_channel' });
    expect(hookFromCreate(slack({ channel: ' #dev ', username: 'bot', color: 'good' })).meta).toEqual({ channel: '#dev', username: 'bot', color: 'good' });
  });
});

describe('normalisedEvents', () => {
  it('lower-cases, drops repeats and names Gitea does not know (it sets no flag for them)', () => {
    expect(normalisedEvents(['Push', 'ISSUES', 'push', 'bogus', 'pull_request_review'])).toEqual(['push', 'issues', 'pull_request_review']);
    expect(normalisedEvents(undefined)).toEqual(['push']);
  });
});

describe('hookAfterEdit', () => {
  const stored = hookFromCreate(
    create({ type: 'slack', config: { url: 'https://a/x', content_type: 'json', secret: 'old', channel: '#a', username: 'bot' }, events: ['issues'], branchFilter: 'main', authorizationHeader: 'Bearer t', name: 'n' }),
  );

  it('changes nothing when nothing is given', () => {
    expect(hookAfterEdit(stored, edit())).toEqual(stored);
  });

  it('replaces the config keys given and the fields given', () => {
    const edited = hookAfterEdit(stored, edit({ config: { url: 'http://b/y', secret: 'new', color: 'red' }, events: ['Create'], active: true, branchFilter: '', name: 'm' }));
    expect(edited).toMatchObject({ url: 'http://b/y', secret: 'new', meta: { channel: '#a', username: 'bot', color: 'red' }, events: ['create'], active: true, branchFilter: '', name: 'm' });
    expect(edited.authorizationHeader).toBe('Bearer t');
    expect(edited.contentType).toBe('json');
  });

  it('checks what it is given as on create', () => {
    expect(refusal(() => hookAfterEdit(stored, edit({ config: { content_type: 'yaml' } }))).message).toBe('Invalid content type');
    expect(refusal(() => hookAfterEdit(stored, edit({ config: { url: 'gopher://x' } }))).message).toBe('Invalid url');
    expect(refusal(() => hookAfterEdit(stored, edit({ config: { channel: '#' } }))).reason).toBe('invalid_slack_channel');
    expect(refusal(() => hookAfterEdit(stored, edit({ branchFilter: '{a' }))).message).toBe('[BranchFilter]: GlobPattern');
  });
});
