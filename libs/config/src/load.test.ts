import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inspect } from 'node:util';
import { ConfigError } from './errors';
import { DEFAULT_CLOSE_KEYWORDS, DEFAULT_REOPEN_KEYWORDS } from './settings';
import { type LoadedConfig, loadConfig } from './load';
import type { CairnConfig } from './types';

let root: string;
let caseCounter = 0;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-config-load-'));
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** A fresh working directory; `ini` (if given) is written to its data/app.ini. */
function workspace(ini?: string): string {
  const cwd = path.join(root, `case-${++caseCounter}`);
  fs.mkdirSync(path.join(cwd, 'data'), { recursive: true });
  if (ini !== undefined) fs.writeFileSync(path.join(cwd, 'data', 'app.ini'), ini);
  return cwd;
}

function load(ini?: string, env: NodeJS.ProcessEnv = {}): LoadedConfig {
  return loadConfig({ env, cwd: workspace(ini) });
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it('fills every setting when there is no config file', () => {
    const cwd = workspace();
    const { config, warnings } = loadConfig({ env: {}, cwd });
    const expected: CairnConfig = {
      workDir: path.join(cwd, 'data'),
      configPath: path.join(cwd, 'data', 'app.ini'),
      appName: 'Cairn',
      runMode: 'prod',
      server: {
        httpAddr: '0.0.0.0',
        httpPort: 3000,
        rootUrl: 'http://localhost:3000/',
        disableHttpGit: false,
        lfsStartServer: false,
        maxBodySize: 10_485_760,
      },
      database: { url: '', maxOpenConns: 10 },
      bus: {
        url: '',
        servers: [],
        auth: { kind: 'none' },
        prefix: 'cairn',
        streamMaxAgeMs: 604_800_000,
        streamMaxBytes: 1_073_741_824,
        eventsMaxAgeMs: 2_592_000_000,
        eventsMaxBytes: 1_073_741_824,
        streamReplicas: 1,
      },
      log: { level: 'info' },
      api: {
        enableSwagger: true,
        maxResponseItems: 50,
        defaultPagingNum: 30,
        defaultGitTreesPerPage: 1000,
        defaultMaxBlobSize: 10_485_760,
        defaultMaxResponseSize: 104_857_600,
      },
      ui: {
        explorePagingNum: 20,
        issuePagingNum: 20,
        repoSearchPagingNum: 20,
        membersPagingNum: 20,
        feedPagingNum: 20,
        defaultTheme: 'gitea-auto',
        reactions: ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'],
        customEmojis: ['git', 'gitea', 'codeberg', 'gitlab', 'github', 'gogs'],
        showUserEmail: true,
        codeCommentLines: 4,
      },
      explore: { requireSigninView: false, disableUsersPage: false },
      service: {
        requireSigninView: false,
        enableBasicAuthentication: true,
        userDeleteWithCommentsMaxTime: 0,
        defaultUserIsRestricted: false,
        defaultUserVisibility: 'public',
        defaultOrgVisibility: 'public',
        defaultAllowCreateOrganization: true,
        defaultOrgMemberVisible: false,
        enableTimetracking: true,
        enableUserHeatmap: true,
        autoWatchNewRepos: true,
        noReplyAddress: 'noreply.localhost',
      },
      security: {
        disableWebhooks: false,
        disableQueryAuthToken: false,
        minPasswordLength: 8,
        loginMaxFailures: 5,
        loginMaxAccountFailures: 50,
        loginMaxAddressFailures: 100,
        loginFailureWindowSeconds: 900,
        loginBlockSeconds: 60,
        loginKnownAddressDays: 30,
        passwordCheckConcurrency: 2,
        passwordCheckQueue: 32,
        reverseProxyTrustedProxies: ['127.0.0.0/8', '::1/128'],
      },
      repository: {
        disableMigrations: false,
        defaultRepoUnits: [
          'repo.code',
          'repo.issues',
          'repo.pulls',
          'repo.releases',
          'repo.wiki',
          'repo.projects',
          'repo.packages',
          'repo.actions',
        ],
        disabledRepoUnits: [],
        defaultBranch: 'main',
        disableStars: false,
        forcePrivate: false,
        maxCreationLimit: -1,
        maxPushSize: 2 * 1024 * 1024 * 1024,
        issue: { maxPinned: 3 },
        release: { allowedTypes: '' },
        signing: {
          signingKey: 'default',
          signingName: '',
          signingEmail: '',
          format: 'openpgp',
          merges: ['pubkey', 'twofa', 'basesigned', 'commitssigned'],
          defaultTrustModel: 'collaborator',
          home: path.join(cwd, 'data', 'home'),
          gnupgHome: path.join(cwd, 'data', 'home', '.gnupg'),
        },
        pullRequest: { addCoCommitterTrailers: true, closeKeywords: [...DEFAULT_CLOSE_KEYWORDS], reopenKeywords: [...DEFAULT_REOPEN_KEYWORDS] },
      },
      migrations: { allowedDomains: [], blockedDomains: [], allowLocalnetworks: false },
      mirror: { enabled: true, disableNewPull: false, disableNewPush: false, minInterval: 600_000, defaultInterval: 28_800_000 },
      webhook: { allowedHostList: ['external'], deliverTimeout: 5, skipTlsVerify: false, deliveryAttempts: 5, retryBackoff: 10_000 },
      attachment: {
        enabled: true,
        allowedTypes:
          '.avif,.cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,' +
          '.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip',
        maxSize: 2048,
        maxFiles: 5,
        storage: { type: 'local', path: path.join(cwd, 'data', 'attachments') },
      },
      git: {
        timeout: { default: 360_000, gc: 60_000, transfer: 3_600_000, idle: 120_000, migrate: 600_000, mirror: 300_000 },
        maxConcurrentTransfers: 32,
        maxQueuedTransfers: 64,
        gcArgs: [],
      },
      cron: { gitGcRepos: { enabled: true, runAtStart: false, every: 72 * 3_600_000, timeout: 3_600_000, args: [] } },
      services: {
        accounts: { listen: '127.0.0.1:50051', addr: '127.0.0.1:50051' },
        notifications: { listen: '127.0.0.1:50052', addr: '127.0.0.1:50052' },
        repos: { listen: '127.0.0.1:50053', addr: '127.0.0.1:50053' },
        'git-storage': { listen: '127.0.0.1:50054', addr: '127.0.0.1:50054' },
        social: { listen: '127.0.0.1:50055', addr: '127.0.0.1:50055' },
        issues: { listen: '127.0.0.1:50056', addr: '127.0.0.1:50056' },
        hooks: { listen: '127.0.0.1:50057', addr: '127.0.0.1:50057' },
        migrations: { listen: '127.0.0.1:50058', addr: '127.0.0.1:50058' },
      },
      rpc: { deadlineMs: 5000, gitWriteDeadlineMs: 60_000, keysDir: path.join(cwd, 'data', 'rpc-keys') },
      mailer: {
        enabled: false,
        protocol: 'smtps',
        smtpAddr: '',
        smtpPort: 465,
        user: '',
        // Not enumerable (see below), so toEqual looks past it.
        passwd: '',
        from: '',
        subjectPrefix: '',
        sendmailPath: 'sendmail',
        forceTrustServerCert: false,
        mailDir: undefined,
        dummyDir: path.join(cwd, 'data', 'mail'),
        sendAttempts: 8,
        retryBackoff: 10_000,
      },
      admin: { defaultEmailNotifications: 'enabled' },
      metrics: { enabled: false, listen: '127.0.0.1:9464', token: '' },
    };
    Object.defineProperty(expected.mailer, 'passwd', { value: '', enumerable: false });
    expect(config).toEqual(expected);
    expect(warnings).toEqual([]);
  });

  it('reads the git process limits, the push size and the git gc task', () => {
    const { config, warnings } = load(
      [
        '[repository]',
        'MAX_PUSH_SIZE = 1048576',
        '[git]',
        'GC_ARGS = --aggressive',
        'MAX_CONCURRENT_TRANSFERS = 4',
        'MAX_QUEUED_TRANSFERS = 0',
        'HOME_PATH = /var/lib/gitea/home',
        '[git.timeout]',
        'DEFAULT = 30',
        'GC = 90',
        'TRANSFER = 600',
        'IDLE = 5',
        'MIGRATE = 600',
        '[cron.git_gc_repos]',
        'ENABLED = false',
        'RUN_AT_START = true',
        'SCHEDULE = @every 1h30m',
        'TIMEOUT = 10m',
        'ARGS = --no-prune --quiet',
        'NOTICE_ON_SUCCESS = true',
      ].join('\n'),
    );
    expect(warnings).toEqual([]);
    expect(config.repository.maxPushSize).toBe(1_048_576);
    expect(config.git).toEqual({
      timeout: { default: 30_000, gc: 90_000, transfer: 600_000, idle: 5_000, migrate: 600_000, mirror: 300_000 },
      maxConcurrentTransfers: 4,
      maxQueuedTransfers: 0,
      gcArgs: ['--aggressive'],
    });
    expect(config.cron.gitGcRepos).toEqual({ enabled: false, runAtStart: true, every: 5_400_000, timeout: 600_000, args: ['--no-prune', '--quiet'] });
  });

  it.each([
    ['[cron.git_gc_repos]\nSCHEDULE = 0 3 * * *', 'cron expressions are not supported'],
    ['[cron.git_gc_repos]\nSCHEDULE = @every 10ms', 'at least 1s'],
    ['[git]\nGC_ARGS = --quiet /etc/passwd', 'long options'],
    ['[cron.git_gc_repos]\nARGS = --prune=now', 'no --prune'],
    ['[git.timeout]\nIDLE = 0', 'positive integer'],
    ['[repository]\nMAX_PUSH_SIZE = -1', 'integer of 0 or more'],
  ])('refuses %j', (text, expected) => {
    expect(() => load(text)).toThrow(expected);
  });

  it('treats blank values as unset', () => {
    const { config } = load('APP_NAME =\n[server]\nHTTP_PORT =\n[ui]\nREACTIONS = ,\n');
    expect(config.appName).toBe('Cairn');
    expect(config.server.httpPort).toBe(3000);
    expect(config.ui.reactions).toHaveLength(8);
  });
});

describe('paths', () => {
  it('resolves CAIRN_WORK_DIR against cwd and defaults CAIRN_CONFIG to app.ini inside it', () => {
    const cwd = workspace();
    const { config } = loadConfig({ env: { CAIRN_WORK_DIR: 'var/cairn' }, cwd });
    expect(config.workDir).toBe(path.join(cwd, 'var', 'cairn'));
    expect(config.configPath).toBe(path.join(cwd, 'var', 'cairn', 'app.ini'));
  });

  it('reads the file named by CAIRN_CONFIG', () => {
    const cwd = workspace('[server]\nHTTP_PORT = 1111\n');
    fs.writeFileSync(path.join(cwd, 'custom.ini'), '[server]\nHTTP_PORT = 2222\n');
    const { config } = loadConfig({ env: { CAIRN_CONFIG: 'custom.ini' }, cwd });
    expect(config.configPath).toBe(path.join(cwd, 'custom.ini'));
    expect(config.server.httpPort).toBe(2222);
  });

  it('rejects an unparsable file', () => {
    const error = configError(() => load('[server]\nHTTP_PORT\n'));
    expect(error.key).toBe('CAIRN_CONFIG');
    expect(error.message).toContain('line 2');
  });
});

describe('file settings', () => {
  it('reads a Gitea-style app.ini', () => {
    const { config, warnings } = load(
      [
        'APP_NAME = Team Forge',
        'RUN_MODE = dev',
        '[server]',
        'HTTP_ADDR = 127.0.0.1',
        'HTTP_PORT = 3100',
        'ROOT_URL = https://git.example.com/forge',
        'LFS_START_SERVER = true',
        '[repository]',
        'DISABLE_HTTP_GIT = true',
        'DISABLE_MIGRATIONS = yes',
        'DEFAULT_BRANCH = trunk',
        'MAX_CREATION_LIMIT = 3',
        '[api]',
        'MAX_RESPONSE_ITEMS = 100',
        'DEFAULT_PAGING_NUM = 10',
        '[ui]',
        'EXPLORE_PAGING_NUM = 7',
        'REACTIONS = +1, heart, ,tada',
        'CODE_COMMENT_LINES = 6',
        '[migrations]',
        'ALLOWED_DOMAINS = GitHub.com, *.GitLab.com',
        'BLOCKED_DOMAINS = evil.example',
        'ALLOW_LOCALNETWORKS = on',
        '[webhook]',
        'ALLOWED_HOST_LIST = Loopback, 10.0.0.0/8',
        'DELIVER_TIMEOUT = 15',
        'SKIP_TLS_VERIFY = true',
        'DELIVERY_ATTEMPTS = 3',
        'RETRY_BACKOFF = 30s',
        '[service]',
        'DEFAULT_USER_VISIBILITY = Limited',
        'USER_DELETE_WITH_COMMENTS_MAX_TIME = 720h',
        '[log]',
        'LEVEL = Warn',
        '[database]',
        'URL = postgresql://cairn:secret@db.internal:5432/cairn',
        'MAX_OPEN_CONNS = 25',
        '[bus]',
        'URL = nats://n1:4222, nats://n2:4222',
        '[rpc]',
        'DEADLINE_MS = 2500',
      ].join('\n'),
    );
    expect(warnings).toEqual([]);
    expect(config.appName).toBe('Team Forge');
    expect(config.runMode).toBe('dev');
    expect(config.server).toMatchObject({
      httpAddr: '127.0.0.1',
      httpPort: 3100,
      rootUrl: 'https://git.example.com/forge/',
      lfsStartServer: true,
      disableHttpGit: true,
    });
    expect(config.repository).toMatchObject({ disableMigrations: true, defaultBranch: 'trunk', maxCreationLimit: 3 });
    expect(config.api).toMatchObject({ maxResponseItems: 100, defaultPagingNum: 10 });
    expect(config.ui.explorePagingNum).toBe(7);
    expect(config.ui.reactions).toEqual(['+1', 'heart', 'tada']);
    expect(config.ui.codeCommentLines).toBe(6);
    expect(config.migrations).toEqual({
      allowedDomains: ['github.com', '*.gitlab.com'],
      blockedDomains: ['evil.example'],
      allowLocalnetworks: true,
    });
    expect(config.webhook).toEqual({ allowedHostList: ['loopback', '10.0.0.0/8'], deliverTimeout: 15, skipTlsVerify: true, deliveryAttempts: 3, retryBackoff: 30_000 });
    expect(config.service.defaultUserVisibility).toBe('limited');
    expect(config.service.userDeleteWithCommentsMaxTime).toBe(720 * 3_600_000);
    expect(config.log.level).toBe('warn');
    expect(config.database).toEqual({ url: 'postgresql://cairn:secret@db.internal:5432/cairn', maxOpenConns: 25 });
    expect(config.bus).toMatchObject({ url: 'nats://n1:4222,nats://n2:4222', servers: ['nats://n1:4222', 'nats://n2:4222'], auth: { kind: 'none' } });
    expect(config.rpc.deadlineMs).toBe(2500);
  });

  it('accepts a typical installer-written Gitea app.ini without warnings', () => {
    const { config, warnings } = load(
      [
        'APP_NAME = Gitea: Git with a cup of tea',
        'RUN_USER = git',
        'WORK_PATH = /var/lib/gitea',
        'RUN_MODE = prod',
        '[repository]',
        'ROOT = /var/lib/gitea/data/gitea-repositories',
        '[repository.local]',
        'LOCAL_COPY_PATH = /tmp/gitea/local-repo',
        '[server]',
        'APP_DATA_PATH = /var/lib/gitea/data',
        'DOMAIN = git.example.com',
        'SSH_DOMAIN = git.example.com',
        'HTTP_PORT = 3000',
        'ROOT_URL = https://git.example.com/',
        'DISABLE_SSH = false',
        'SSH_PORT = 22',
        'SSH_LISTEN_PORT = 22',
        'LFS_START_SERVER = true',
        'LFS_JWT_SECRET = abc',
        'OFFLINE_MODE = true',
        '[database]',
        'PATH = /var/lib/gitea/data/gitea.db',
        'DB_TYPE = postgres',
        'HOST = 127.0.0.1:5432',
        'NAME = gitea',
        'USER = gitea',
        'PASSWD = `s3cr#t`',
        'SCHEMA =',
        'SSL_MODE = disable',
        'LOG_SQL = false',
        '[indexer]',
        'ISSUE_INDEXER_PATH = /var/lib/gitea/data/indexers/issues.bleve',
        '[session]',
        'PROVIDER_CONFIG = /var/lib/gitea/data/sessions',
        'PROVIDER = file',
        '[picture]',
        'AVATAR_UPLOAD_PATH = /var/lib/gitea/data/avatars',
        '[attachment]',
        'PATH = /var/lib/gitea/data/attachments',
        '[log]',
        'MODE = console',
        'LEVEL = info',
        'ROOT_PATH = /var/lib/gitea/log',
        'logger.router.MODE = ,',
        '[security]',
        'INSTALL_LOCK = true',
        'SECRET_KEY =',
        'REVERSE_PROXY_LIMIT = 1',
        'REVERSE_PROXY_TRUSTED_PROXIES = *',
        'INTERNAL_TOKEN = eyJhbGciOiJIUzI1NiJ9',
        'PASSWORD_HASH_ALGO = pbkdf2',
        '[service]',
        'DISABLE_REGISTRATION = false',
        'REQUIRE_SIGNIN_VIEW = false',
        'REGISTER_EMAIL_CONFIRM = false',
        'ENABLE_NOTIFY_MAIL = false',
        'ALLOW_ONLY_EXTERNAL_REGISTRATION = false',
        'ENABLE_CAPTCHA = false',
        'DEFAULT_KEEP_EMAIL_PRIVATE = false',
        'DEFAULT_ALLOW_CREATE_ORGANIZATION = true',
        'DEFAULT_ENABLE_TIMETRACKING = true',
        'NO_REPLY_ADDRESS = noreply.localhost',
        '[lfs]',
        'PATH = /var/lib/gitea/data/lfs',
        '[mailer]',
        'ENABLED = false',
        '[openid]',
        'ENABLE_OPENID_SIGNIN = true',
        'ENABLE_OPENID_SIGNUP = true',
        '[cron.update_checker]',
        'ENABLED = false',
        '[repository.pull-request]',
        'DEFAULT_MERGE_STYLE = merge',
        'ADD_CO_COMMITTER_TRAILERS = false',
        'CLOSE_KEYWORDS = Finishes, ends',
        '[repository.signing]',
        'DEFAULT_TRUST_MODEL = committer',
        '[oauth2]',
        'JWT_SECRET = xyz',
      ].join('\n'),
    );
    expect(warnings).toEqual([]);
    expect(config.database.url).toBe('postgres://gitea:s3cr%23t@127.0.0.1:5432/gitea');
    expect(config.server.rootUrl).toBe('https://git.example.com/');
    expect(config.service.noReplyAddress).toBe('noreply.localhost');
    expect(config.repository.pullRequest.addCoCommitterTrailers).toBe(false);
    expect(config.repository.pullRequest.closeKeywords).toEqual(['finishes', 'ends']);
    expect(config.repository.pullRequest.reopenKeywords).toEqual(['reopen', 'reopens', 'reopened']);
  });

  it('derives [service] NO_REPLY_ADDRESS from [server] DOMAIN when unset', () => {
    expect(load('[server]\nDOMAIN = git.example.com\n').config.service.noReplyAddress).toBe('noreply.git.example.com');
  });
});

describe('[repository.signing]', () => {
  it('reads the key, the signer, MERGES and the trust model, and accepts Gitea\'s other signing keys silently', () => {
    const { config, warnings } = load(
      [
        '[repository.signing]',
        'SIGNING_KEY = 6522D8594AC6BB6792DF2F1995FD1BFAD9B3C34A',
        'SIGNING_NAME = Cairn',
        'SIGNING_EMAIL = cairn@example.com',
        'SIGNING_FORMAT = OpenPGP',
        'MERGES = Approved, headsigned , approved',
        'DEFAULT_TRUST_MODEL = CollaboratorCommitter',
        'INITIAL_COMMIT = always',
        'CRUD_ACTIONS = pubkey, twofa, parentsigned',
        'WIKI = never',
        'TRUSTED_SSH_KEYS =',
      ].join('\n'),
    );
    expect(warnings).toEqual([]);
    expect(config.repository.signing).toMatchObject({
      signingKey: '6522D8594AC6BB6792DF2F1995FD1BFAD9B3C34A',
      signingName: 'Cairn',
      signingEmail: 'cairn@example.com',
      format: 'openpgp',
      merges: ['approved', 'headsigned'],
      defaultTrustModel: 'collaboratorcommitter',
    });
  });

  it('lets the first never or always replace the MERGES list, as Gitea, and reads "default" as collaborator', () => {
    const signing = (ini: string) => load(`[repository.signing]\n${ini}\n`).config.repository.signing;
    expect(signing('MERGES = pubkey, always, never').merges).toEqual(['always']);
    expect(signing('MERGES = never, always').merges).toEqual(['never']);
    expect(signing('MERGES = ,').merges).toEqual(['never']);
    expect(signing('DEFAULT_TRUST_MODEL = default').defaultTrustModel).toBe('collaborator');
    expect(signing('SIGNING_KEY = none').signingKey).toBe('none');
  });

  it('finds the GnuPG home under the work directory\'s git home unless GNUPGHOME is set', () => {
    const { config } = load(undefined, { CAIRN_WORK_DIR: 'work', GNUPGHOME: 'keys' });
    expect(config.repository.signing.home).toBe(path.join(config.workDir, 'home'));
    expect(config.repository.signing.gnupgHome).toBe(path.join(path.dirname(config.workDir), 'keys'));
  });

  it('stops start-up for an unknown MERGES rule, an ssh SIGNING_FORMAT or an unknown trust model, naming the key', () => {
    const merges = configError(() => load('[repository.signing]\nMERGES = pubkey, sometimes\n'));
    expect(merges.key).toBe('repository.signing.MERGES');
    expect(merges.message).toContain('[repository.signing] MERGES');
    expect(merges.message).toContain('expected a comma-separated list of never, always, pubkey, twofa, approved, basesigned, headsigned, commitssigned');
    const fromEnv = configError(() => load(undefined, { CAIRN__repository_0X2E_signing__MERGES: 'parentsigned' }));
    expect(fromEnv.message).toContain('CAIRN__repository_0X2E_signing__MERGES');
    const format = configError(() => load('[repository.signing]\nSIGNING_FORMAT = ssh\n'));
    expect(format.key).toBe('repository.signing.SIGNING_FORMAT');
    expect(format.message).toContain('ssh signing is not supported');
    expect(configError(() => load('[repository.signing]\nDEFAULT_TRUST_MODEL = everyone\n')).key).toBe('repository.signing.DEFAULT_TRUST_MODEL');
  });
});

describe('environment overrides', () => {
  it('apply over the file, including dotted sections', () => {
    const { config } = load('[server]\nHTTP_PORT = 3000\n[ui.explore]\nREQUIRE_SIGNIN_VIEW = false\n', {
      CAIRN__server__HTTP_PORT: '3100',
      CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true',
      CAIRN__services_0X2E_accounts__LISTEN: '0.0.0.0:6000',
      CAIRN__DEFAULT__APP_NAME: 'From Env',
    });
    expect(config.server.httpPort).toBe(3100);
    expect(config.server.rootUrl).toBe('http://localhost:3100/');
    expect(config.explore.requireSigninView).toBe(true);
    expect(config.services.accounts).toEqual({ listen: '0.0.0.0:6000', addr: '127.0.0.1:6000' });
    expect(config.appName).toBe('From Env');
  });

  it('work without a file', () => {
    const { config } = load(undefined, { CAIRN__repository__DISABLE_MIGRATIONS: 'true' });
    expect(config.repository.disableMigrations).toBe(true);
  });

  it('name the variable in errors', () => {
    const error = configError(() => load('[server]\nHTTP_PORT = 3000\n', { CAIRN__server__HTTP_PORT: 'abc' }));
    expect(error.key).toBe('server.HTTP_PORT');
    expect(error.message).toBe(
      'invalid value "abc" for [server] HTTP_PORT (from environment variable CAIRN__server__HTTP_PORT): expected an integer from 0 to 65535',
    );
  });
});

describe('aliases', () => {
  it('reads [service.explore] when [ui.explore] is unset', () => {
    const { config } = load('[service.explore]\nREQUIRE_SIGNIN_VIEW = true\nDISABLE_USERS_PAGE = true\n');
    expect(config.explore).toEqual({ requireSigninView: true, disableUsersPage: true });
  });

  it('lets [ui.explore] win over [service.explore]', () => {
    const { config } = load(
      '[service.explore]\nREQUIRE_SIGNIN_VIEW = true\nDISABLE_USERS_PAGE = false\n' +
        '[ui.explore]\nREQUIRE_SIGNIN_VIEW = false\nDISABLE_USERS_PAGE = true\n',
    );
    expect(config.explore).toEqual({ requireSigninView: false, disableUsersPage: true });
  });

  it('lets an environment override of the alias beat nothing but lose to the contract name', () => {
    const { config } = load('[ui.explore]\nREQUIRE_SIGNIN_VIEW = false\n', {
      CAIRN__service_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true',
      CAIRN__service_0X2E_explore__DISABLE_USERS_PAGE: 'true',
    });
    expect(config.explore).toEqual({ requireSigninView: false, disableUsersPage: true });
  });

  it('reads the sign-in throttle settings and refuses bad ones, naming the key', () => {
    const { security } = load(
      '[security]\nLOGIN_MAX_FAILURES = 0\nLOGIN_BLOCK_SECONDS = 300\nPASSWORD_CHECK_QUEUE = 0\nREVERSE_PROXY_TRUSTED_PROXIES = 10.0.0.0/8\n',
    ).config;
    expect(security).toMatchObject({ loginMaxFailures: 0, loginBlockSeconds: 300, passwordCheckQueue: 0, reverseProxyTrustedProxies: ['10.0.0.0/8'] });
    expect(configError(() => load('[security]\nLOGIN_BLOCK_SECONDS = 0\n')).key).toBe('security.LOGIN_BLOCK_SECONDS');
    expect(configError(() => load('[security]\nPASSWORD_CHECK_CONCURRENCY = 0\n')).key).toBe('security.PASSWORD_CHECK_CONCURRENCY');
    expect(configError(() => load('[security]\nLOGIN_MAX_FAILURES = -1\n')).key).toBe('security.LOGIN_MAX_FAILURES');
    const proxies = configError(() => load('[security]\nREVERSE_PROXY_TRUSTED_PROXIES = 10.0.0.0/40\n'));
    expect(proxies.key).toBe('security.REVERSE_PROXY_TRUSTED_PROXIES');
    expect(proxies.message).toContain('CIDR');
  });

  it('reads DISABLE_WEBHOOKS as DISABLE_WEB_HOOKS, the contract name winning', () => {
    expect(load('[security]\nDISABLE_WEBHOOKS = true\n').config.security.disableWebhooks).toBe(true);
    expect(load('[security]\nDISABLE_WEBHOOKS = true\nDISABLE_WEB_HOOKS = false\n').config.security.disableWebhooks).toBe(
      false,
    );
    expect(load('[security]\nDISABLE_WEB_HOOKS = true\n').config.security.disableWebhooks).toBe(true);
  });

  it('accepts [server] DISABLE_HTTP_GIT, [repository] winning', () => {
    expect(load('[server]\nDISABLE_HTTP_GIT = true\n').config.server.disableHttpGit).toBe(true);
    expect(
      load('[server]\nDISABLE_HTTP_GIT = true\n[repository]\nDISABLE_HTTP_GIT = false\n').config.server.disableHttpGit,
    ).toBe(false);
  });

  it('reads [service] REQUIRE_SIGNIN_VIEW = expensive as false', () => {
    expect(load('[service]\nREQUIRE_SIGNIN_VIEW = expensive\n').config.service.requireSigninView).toBe(false);
    expect(load('[service]\nREQUIRE_SIGNIN_VIEW = true\n').config.service.requireSigninView).toBe(true);
  });

  it('maps Gitea log levels onto pino levels', () => {
    expect(load('[log]\nLEVEL = Critical\n').config.log.level).toBe('fatal');
    expect(load('[log]\nLEVEL = None\n').config.log.level).toBe('silent');
    expect(load('[log]\nLEVEL = DEBUG\n').config.log.level).toBe('debug');
  });
});

describe('invalid values', () => {
  it.each([
    ['[server]\nHTTP_PORT = abc', 'server.HTTP_PORT', '"abc"', 'expected an integer from 0 to 65535'],
    ['[server]\nHTTP_PORT = 70000', 'server.HTTP_PORT', '"70000"', 'expected an integer from 0 to 65535'],
    ['[api]\nDEFAULT_PAGING_NUM = 0', 'api.DEFAULT_PAGING_NUM', '"0"', 'expected a positive integer'],
    ['[ui]\nCODE_COMMENT_LINES = -1', 'ui.CODE_COMMENT_LINES', '"-1"', 'expected an integer of 0 or more'],
    ['[repository]\nMAX_CREATION_LIMIT = -2', 'repository.MAX_CREATION_LIMIT', '"-2"', 'expected an integer of -1 or more'],
    ['[repository]\nDISABLE_MIGRATIONS = perhaps', 'repository.DISABLE_MIGRATIONS', '"perhaps"', 'expected true or false'],
    ['[ui.explore]\nREQUIRE_SIGNIN_VIEW = 2', 'ui.explore.REQUIRE_SIGNIN_VIEW', '"2"', 'expected true or false'],
    ['[service]\nREQUIRE_SIGNIN_VIEW = sometimes', 'service.REQUIRE_SIGNIN_VIEW', '"sometimes"', 'expected true, false or expensive'],
    ['[mirror]\nMIN_INTERVAL = 10', 'mirror.MIN_INTERVAL', '"10"', 'expected a duration'],
    ['[mirror]\nDEFAULT_INTERVAL = soon', 'mirror.DEFAULT_INTERVAL', '"soon"', 'expected a duration'],
    ['[service]\nUSER_DELETE_WITH_COMMENTS_MAX_TIME = 1y', 'service.USER_DELETE_WITH_COMMENTS_MAX_TIME', '"1y"', 'expected a duration'],
    ['[service]\nDEFAULT_USER_VISIBILITY = hidden', 'service.DEFAULT_USER_VISIBILITY', '"hidden"', 'expected one of public, limited, private'],
    ['RUN_MODE = staging', 'DEFAULT.RUN_MODE', '"staging"', 'expected one of prod, dev'],
    ['[log]\nLEVEL = loud', 'log.LEVEL', '"loud"', 'expected one of trace, debug, info, warn, error, fatal, silent'],
    ['[database]\nURL = mysql://db/gitea', 'database.URL', '"mysql://db/gitea"', 'expected a postgres:// or postgresql:// URL'],
    ['[bus]\nURL = nats://a:4222, http://b', 'bus.URL', '"nats://a:4222, http://b"', 'expected a nats:// URL'],
    ['[server]\nROOT_URL = ftp://x/', 'server.ROOT_URL', '"ftp://x/"', 'expected an http:// or https:// URL'],
    ['[server]\nROOT_URL = git.example.com', 'server.ROOT_URL', '"git.example.com"', 'expected an http:// or https:// URL'],
    ['[server]\nROOT_URL = https://x/?a=1', 'server.ROOT_URL', '"https://x/?a=1"', 'without query or fragment'],
    ['[server]\nPROTOCOL = https', 'server.PROTOCOL', '"https"', 'expected one of http'],
    ['[server]\nDOMAIN = a/b', 'server.DOMAIN', '"a/b"', 'expected a host name'],
    ['[services.accounts]\nLISTEN = 50051', 'services.accounts.LISTEN', '"50051"', 'expected host:port'],
    ['[services.accounts]\nADDR = host:99999', 'services.accounts.ADDR', '"host:99999"', 'expected host:port'],
    ['[rpc]\nDEADLINE_MS = 0', 'rpc.DEADLINE_MS', '"0"', 'expected a positive integer'],
    ['[metrics]\nENABLED = sometimes', 'metrics.ENABLED', '"sometimes"', 'expected true or false'],
    ['[metrics]\nLISTEN = 9464', 'metrics.LISTEN', '"9464"', 'expected host:port'],
    ['[metrics]\nLISTEN = 0.0.0.0:65536', 'metrics.LISTEN', '"0.0.0.0:65536"', 'expected host:port'],
    ['[database]\nMAX_OPEN_CONNS = many', 'database.MAX_OPEN_CONNS', '"many"', 'expected a positive integer'],
    ['[database]\nDB_TYPE = postgres\nHOST = /var/run/postgresql', 'database.HOST', '"/var/run/postgresql"', 'for a Unix socket set [database] URL'],
    ['[database]\nDB_TYPE = postgres\nHOST = db\nSSL_MODE = verify-full', 'database.SSL_MODE', '"verify-full"', 'expected one of disable, require, no-verify'],
  ])('%s', (ini, key, shownValue, expected) => {
    const error = configError(() => load(ini));
    expect(error.key).toBe(key);
    const [section, ...name] = key.split('.');
    const setting = key.startsWith('ui.explore') || key.startsWith('services.')
      ? `[${key.split('.').slice(0, 2).join('.')}] ${key.split('.')[2]}`
      : `[${section}] ${name.join('.')}`;
    expect(error.message).toContain(`invalid value ${shownValue} for ${setting}: `);
    expect(error.message).toContain(expected);
  });

  it('uses exactly the documented message shape', () => {
    expect(configError(() => load('[server]\nHTTP_PORT = abc\n')).message).toBe(
      'invalid value "abc" for [server] HTTP_PORT: expected an integer from 0 to 65535',
    );
  });

  it('hides passwords in URLs it rejects', () => {
    const error = configError(() => load('[database]\nURL = mysql://root:hunter2@db/gitea\n'));
    expect(error.message).not.toContain('hunter2');
    expect(error.message).toContain('mysql://root:***@db/gitea');
  });

  it('rejects an invalid value even in the alias', () => {
    expect(configError(() => load('[service.explore]\nREQUIRE_SIGNIN_VIEW = maybe\n')).key).toBe(
      'service.explore.REQUIRE_SIGNIN_VIEW',
    );
  });
});

describe('unknown settings', () => {
  it('are warnings, naming the file or the variable', () => {
    const cwd = workspace('[server]\nHTTP_PORT = 3000\nHTTP_PROT = 3\n[mystery]\nFOO = 1\n');
    const { warnings } = loadConfig({ env: { CAIRN__ui__EXPLORE_PAGES: '3' }, cwd });
    const file = path.join(cwd, 'data', 'app.ini');
    expect(warnings).toEqual([
      `unknown setting [server] HTTP_PROT in ${file} is ignored`,
      `unknown setting [mystery] FOO in ${file} is ignored`,
      'unknown setting [ui] EXPLORE_PAGES in environment variable CAIRN__ui__EXPLORE_PAGES is ignored',
    ]);
  });

  it('include services that do not exist', () => {
    const { warnings } = load('[services.nosuch]\nLISTEN = 127.0.0.1:1\n');
    expect(warnings).toEqual([expect.stringContaining('unknown setting [services.nosuch] LISTEN')]);
  });

  it('exclude whole Gitea sections Cairn ignores and prefixed key families', () => {
    const { warnings } = load(
      '[markdown]\nANYTHING = 1\n[cron.archive_cleanup]\nENABLED = true\n[server]\nSSH_ANYTHING = 1\n[git.config]\ndiff.algorithm = histogram\n',
    );
    expect(warnings).toEqual([]);
  });
});

describe('[server] ROOT_URL', () => {
  it.each([
    ['http://example.com', 'http://example.com/'],
    ['https://example.com/gitea', 'https://example.com/gitea/'],
    ['https://example.com/gitea/', 'https://example.com/gitea/'],
    ['HTTP://Example.COM:8080/', 'http://example.com:8080/'],
    ['http://example.com:80/', 'http://example.com/'],
  ])('%s → %s', (rootUrl, expected) => {
    expect(load(`[server]\nROOT_URL = ${rootUrl}\n`).config.server.rootUrl).toBe(expected);
  });

  it('defaults from DOMAIN and HTTP_PORT', () => {
    expect(load('[server]\nDOMAIN = git.local\nHTTP_PORT = 8080\n').config.server.rootUrl).toBe('http://git.local:8080/');
    expect(load('[server]\nDOMAIN = ::1\n').config.server.rootUrl).toBe('http://[::1]:3000/');
  });

  it("expands go-ini %(KEY)s references from the section and [DEFAULT]", () => {
    const { config } = load(
      'HOST_NAME = forge.example\n[server]\nPROTOCOL = http\nDOMAIN = %(HOST_NAME)s\nHTTP_PORT = 3200\n' +
        'ROOT_URL = %(PROTOCOL)s://%(DOMAIN)s:%(HTTP_PORT)s/\n',
    );
    expect(config.server.rootUrl).toBe('http://forge.example:3200/');
  });

  it('leaves unknown references, which then fail validation', () => {
    expect(configError(() => load('[server]\nROOT_URL = %(NOPE)s://x/\n')).key).toBe('server.ROOT_URL');
  });
});

describe('durations', () => {
  it('parses Go durations into milliseconds', () => {
    const { config, warnings } = load(
      '[mirror]\nMIN_INTERVAL = 1h30m\nDEFAULT_INTERVAL = 12h\n[service]\nUSER_DELETE_WITH_COMMENTS_MAX_TIME = 90s\n',
    );
    expect(config.mirror).toEqual({ enabled: true, disableNewPull: false, disableNewPush: false, minInterval: 5_400_000, defaultInterval: 43_200_000 });
    expect(config.service.userDeleteWithCommentsMaxTime).toBe(90_000);
    expect(warnings).toEqual([]);
  });

  it('reads a bare number of seconds for USER_DELETE_WITH_COMMENTS_MAX_TIME, as Gitea', () => {
    expect(load('[service]\nUSER_DELETE_WITH_COMMENTS_MAX_TIME = 3600\n').config.service.userDeleteWithCommentsMaxTime).toBe(
      3_600_000,
    );
  });

  it('clamps MIN_INTERVAL up to 1m', () => {
    const { config, warnings } = load('[mirror]\nMIN_INTERVAL = 30s\n');
    expect(config.mirror.minInterval).toBe(60_000);
    expect(warnings).toEqual([expect.stringContaining('MIN_INTERVAL')]);
  });

  it('raises DEFAULT_INTERVAL below MIN_INTERVAL to max(8h, MIN_INTERVAL)', () => {
    expect(load('[mirror]\nMIN_INTERVAL = 1h\nDEFAULT_INTERVAL = 30m\n').config.mirror.defaultInterval).toBe(8 * 3_600_000);
    const { config, warnings } = load('[mirror]\nMIN_INTERVAL = 10h\n');
    expect(config.mirror.defaultInterval).toBe(10 * 3_600_000);
    expect(warnings).toEqual([expect.stringContaining('DEFAULT_INTERVAL')]);
  });
});

describe('repository units', () => {
  it('reads the lists case-insensitively and removes disabled units from the defaults', () => {
    const { config, warnings } = load(
      '[repository]\nDEFAULT_REPO_UNITS = repo.code, REPO.Issues, repo.wiki, repo.unknown\nDISABLED_REPO_UNITS = repo.wiki\n',
    );
    expect(config.repository.defaultRepoUnits).toEqual(['repo.code', 'repo.issues']);
    expect(config.repository.disabledRepoUnits).toEqual(['repo.wiki']);
    expect(warnings).toEqual([expect.stringContaining('repo.unknown')]);
  });

  it('disables the packages and actions units when those features are off', () => {
    const { config } = load('[packages]\nENABLED = false\n[actions]\nENABLED = false\n');
    expect(config.repository.disabledRepoUnits).toEqual(['repo.packages', 'repo.actions']);
    expect(config.repository.defaultRepoUnits).not.toContain('repo.packages');
    expect(config.repository.defaultRepoUnits).not.toContain('repo.actions');
  });

  it('rejects a configuration that leaves no default unit', () => {
    const error = configError(() =>
      load('[repository]\nDEFAULT_REPO_UNITS = repo.wiki\nDISABLED_REPO_UNITS = repo.wiki\n'),
    );
    expect(error.key).toBe('repository.DEFAULT_REPO_UNITS');
    expect(error.message).toContain('[repository] DEFAULT_REPO_UNITS');
  });
});

describe('service endpoints', () => {
  it('default ADDR to LISTEN, dialing loopback for wildcard addresses', () => {
    expect(load('[services.accounts]\nLISTEN = [::]:7000\n').config.services.accounts).toEqual({
      listen: '[::]:7000',
      addr: '[::1]:7000',
    });
    expect(load('[services.accounts]\nLISTEN = 10.0.0.5:7000\n').config.services.accounts.addr).toBe('10.0.0.5:7000');
  });

  it('take an explicit ADDR', () => {
    expect(
      load('[services.accounts]\nLISTEN = 0.0.0.0:7000\nADDR = accounts.internal:7000\n').config.services.accounts,
    ).toEqual({ listen: '0.0.0.0:7000', addr: 'accounts.internal:7000' });
  });
});

describe('[metrics]', () => {
  it('reads ENABLED, LISTEN and TOKEN from the file, the environment winning', () => {
    const { config, warnings } = load('[metrics]\nENABLED = true\nLISTEN = 0.0.0.0:9100\nTOKEN = from-file\n', {
      CAIRN__metrics__TOKEN: 's3cret',
    });
    expect(config.metrics).toEqual({ enabled: true, listen: '0.0.0.0:9100', token: 's3cret' });
    expect(warnings).toEqual([]);
  });

  it('reads the token from a file named by CAIRN__metrics__TOKEN__FILE', () => {
    const file = path.join(root, 'metrics-token');
    fs.writeFileSync(file, 'from-secret\n');
    expect(load(undefined, { CAIRN__metrics__TOKEN__FILE: file }).config.metrics.token).toBe('from-secret');
  });

  it('accepts the Gitea keys it ignores without warnings', () => {
    const { config, warnings } = load('[metrics]\nENABLED = true\nENABLED_ISSUE_BY_LABEL = true\nENABLED_ISSUE_BY_REPOSITORY = true\n');
    expect(config.metrics.enabled).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('takes an IPv6 listen address', () => {
    expect(load('[metrics]\nLISTEN = [::]:9464\n').config.metrics.listen).toBe('[::]:9464');
  });
});

describe('[database] from Gitea keys', () => {
  it('builds the URL when URL is empty and DB_TYPE is postgres', () => {
    const { config } = load(
      '[database]\nDB_TYPE = postgres\nHOST = db.internal:5433\nNAME = forge\nUSER = git user\nPASSWD = p@ss/word\nSSL_MODE = require\n',
    );
    expect(config.database.url).toBe('postgres://git%20user:p%40ss%2Fword@db.internal:5433/forge?sslmode=require');
  });

  it('prefers an explicit URL', () => {
    const { config } = load('[database]\nURL = postgres://a@b/c\nDB_TYPE = postgres\nHOST = other\n');
    expect(config.database.url).toBe('postgres://a@b/c');
  });

  it('ignores other database types with a warning', () => {
    const { config, warnings } = load('[database]\nDB_TYPE = sqlite3\nPATH = /data/gitea.db\n');
    expect(config.database.url).toBe('');
    expect(warnings).toEqual([expect.stringContaining('DB_TYPE = sqlite3 is ignored')]);
  });

  it('brackets a bare IPv6 host', () => {
    expect(load('[database]\nDB_TYPE = postgres\nHOST = ::1\n').config.database.url).toBe('postgres://[::1]/gitea');
  });
});

describe('[repository.issue]', () => {
  it('reads MAX_PINNED (default 3) and accepts LOCK_REASONS silently', () => {
    expect(load().config.repository.issue.maxPinned).toBe(3);
    const { config, warnings } = load('[repository.issue]\nMAX_PINNED = 5\nLOCK_REASONS = Too heated,Off-topic\n');
    expect(warnings).toEqual([]);
    expect(config.repository.issue.maxPinned).toBe(5);
  });
});

describe('[attachment] storage', () => {
  const minio = {
    type: 'minio',
    endpoint: 'localhost:9000',
    accessKeyId: '',
    bucket: 'gitea',
    location: 'us-east-1',
    basePath: 'attachments/',
    useSsl: false,
    insecureSkipVerify: false,
  };
  const storageOf = (ini?: string, env: NodeJS.ProcessEnv = {}) => {
    const { config, warnings } = load(ini, env);
    expect(warnings).toEqual([]);
    return config.attachment.storage;
  };

  it('defaults to the attachments directory under the work directory', () => {
    const cwd = workspace();
    expect(loadConfig({ env: { CAIRN_WORK_DIR: 'work' }, cwd }).config.attachment.storage).toEqual({ type: 'local', path: path.join(cwd, 'work', 'attachments') });
  });

  it('resolves a relative [attachment] PATH against the work directory and keeps an absolute one', () => {
    const cwd = workspace('[attachment]\nPATH = files/attached\n');
    expect(loadConfig({ env: {}, cwd }).config.attachment.storage).toEqual({ type: 'local', path: path.join(cwd, 'data', 'files', 'attached') });
    expect(storageOf('[attachment]\nSTORAGE_TYPE = local\nPATH = /srv/attachments\n')).toEqual({ type: 'local', path: '/srv/attachments' });
  });

  it('puts attachments under [storage] PATH, which [attachment] PATH may name relative to', () => {
    expect(storageOf('[storage]\nPATH = /srv/storage\n')).toEqual({ type: 'local', path: '/srv/storage/attachments' });
    expect(storageOf('[storage]\nPATH = /srv/storage\n[attachment]\nPATH = files\n')).toEqual({ type: 'local', path: '/srv/storage/files' });
  });

  it('reads minio from [attachment] with Gitea\'s defaults', () => {
    const storage = storageOf('[attachment]\nSTORAGE_TYPE = minio\n');
    expect(storage).toEqual(minio);
    expect(storage.type === 'minio' && storage.secretAccessKey).toBe('');
  });

  it('reads every minio key', () => {
    const storage = storageOf(
      [
        '[attachment]',
        'STORAGE_TYPE = MinIO',
        'MINIO_ENDPOINT = s3.example.com',
        'MINIO_ACCESS_KEY_ID = AKID',
        'MINIO_SECRET_ACCESS_KEY = s3cr3t-value',
        'MINIO_BUCKET = forge',
        'MINIO_LOCATION = eu-west-3',
        'MINIO_BASE_PATH = cairn/attachments/',
        'MINIO_USE_SSL = true',
        'MINIO_INSECURE_SKIP_VERIFY = true',
        'MINIO_CHECKSUM_ALGORITHM = md5',
        'SERVE_DIRECT = false',
      ].join('\n'),
    );
    expect(storage).toEqual({
      ...minio,
      endpoint: 's3.example.com',
      accessKeyId: 'AKID',
      bucket: 'forge',
      location: 'eu-west-3',
      basePath: 'cairn/attachments/',
      useSsl: true,
      insecureSkipVerify: true,
    });
    expect(storage.type === 'minio' && storage.secretAccessKey).toBe('s3cr3t-value');
  });

  it('takes [storage] as the defaults, [attachment] keys winning', () => {
    const ini = [
      '[storage]',
      'STORAGE_TYPE = minio',
      'MINIO_ENDPOINT = minio.internal:9000',
      'MINIO_ACCESS_KEY_ID = shared-id',
      'MINIO_SECRET_ACCESS_KEY = shared-secret',
      'MINIO_BUCKET = shared',
      'MINIO_BASE_PATH = forge/',
      '[attachment]',
      'MINIO_BUCKET = attachments-bucket',
    ].join('\n');
    const storage = storageOf(ini);
    // [storage] MINIO_BASE_PATH is a prefix holding each storage's own directory, as in Gitea.
    expect(storage).toEqual({ ...minio, endpoint: 'minio.internal:9000', accessKeyId: 'shared-id', bucket: 'attachments-bucket', basePath: 'forge/attachments/' });
    expect(storage.type === 'minio' && storage.secretAccessKey).toBe('shared-secret');
    expect(storageOf(`${ini}\nMINIO_BASE_PATH = att/\nMINIO_ENDPOINT = other:9000\n`)).toMatchObject({ basePath: 'att/', endpoint: 'other:9000' });
  });

  it('follows STORAGE_TYPE to a [storage.<name>] section', () => {
    const ini = [
      '[storage.my_minio]',
      'STORAGE_TYPE = minio',
      'MINIO_ENDPOINT = named:9000',
      'MINIO_BUCKET = named-bucket',
      '[attachment]',
      'STORAGE_TYPE = my_minio',
    ].join('\n');
    expect(storageOf(ini)).toEqual({ ...minio, endpoint: 'named:9000', bucket: 'named-bucket' });
    expect(storageOf(`${ini}\nMINIO_BASE_PATH = a/\n`)).toMatchObject({ basePath: 'a/', endpoint: 'named:9000' });
    // [storage.minio] is where STORAGE_TYPE = minio looks first.
    expect(storageOf('[storage.minio]\nMINIO_ENDPOINT = typed:9000\n[attachment]\nSTORAGE_TYPE = minio\n')).toMatchObject({ type: 'minio', endpoint: 'typed:9000' });
    // A local one: its PATH is the directory itself.
    expect(storageOf('[storage.disk]\nSTORAGE_TYPE = local\nPATH = /mnt/disk\n[attachment]\nSTORAGE_TYPE = disk\n')).toEqual({ type: 'local', path: '/mnt/disk' });
  });

  it('reads [storage.attachments] when [attachment] names no type', () => {
    expect(storageOf('[storage.attachments]\nSTORAGE_TYPE = minio\nMINIO_BUCKET = b\n')).toEqual({ ...minio, bucket: 'b' });
    expect(storageOf('[storage.attachments]\nPATH = /mnt/att\n')).toEqual({ type: 'local', path: '/mnt/att' });
  });

  it('is set from the environment, as the tests start an instance', () => {
    const storage = storageOf(undefined, {
      CAIRN__attachment__STORAGE_TYPE: 'minio',
      CAIRN__attachment__MINIO_ENDPOINT: '127.0.0.1:4568',
      CAIRN__attachment__MINIO_ACCESS_KEY_ID: 'S3RVER',
      CAIRN__attachment__MINIO_SECRET_ACCESS_KEY: 'S3RVER',
      CAIRN__attachment__MINIO_BUCKET: 'cairn-test',
    });
    expect(storage).toEqual({ ...minio, endpoint: '127.0.0.1:4568', accessKeyId: 'S3RVER', bucket: 'cairn-test' });
  });

  it('never shows the secret key in a dump of the configuration', () => {
    const { config } = load('[attachment]\nSTORAGE_TYPE = minio\nMINIO_SECRET_ACCESS_KEY = do-not-print-me\n');
    expect(config.attachment.storage.type === 'minio' && config.attachment.storage.secretAccessKey).toBe('do-not-print-me');
    expect(JSON.stringify(config)).not.toContain('do-not-print-me');
    expect(inspect(config, { depth: Infinity })).not.toContain('do-not-print-me');
  });

  it.each([
    ['[attachment]\nSTORAGE_TYPE = azureblob\n', 'attachment.STORAGE_TYPE', /^\[attachment\] STORAGE_TYPE "azureblob" is not a storage type Cairn supports \(Gitea's azureblob storage is not supported by Cairn\): expected one of local, minio$/],
    ['[storage]\nSTORAGE_TYPE = azureblob\n', 'storage.STORAGE_TYPE', /\[storage\] STORAGE_TYPE "azureblob" is not a storage type Cairn supports \(Gitea's azureblob storage is not supported by Cairn\)/],
    ['[storage.blob]\nSTORAGE_TYPE = azureblob\n[attachment]\nSTORAGE_TYPE = blob\n', 'storage.blob.STORAGE_TYPE', /\[storage\.blob\] STORAGE_TYPE "azureblob" is not a storage type Cairn supports/],
    ['[attachment]\nSTORAGE_TYPE = nosuch\n', 'attachment.STORAGE_TYPE', /^\[attachment\] STORAGE_TYPE "nosuch" names neither a storage type \(local, minio\) nor a \[storage\.nosuch\] section$/],
    ['[attachment]\nSTORAGE_TYPE = minio\nMINIO_ENDPOINT = https://s3.example.com\n', 'attachment.MINIO_ENDPOINT', /expected host or host:port, without scheme/],
    ['[storage]\nSTORAGE_TYPE = minio\nMINIO_USE_SSL = maybe\n', 'storage.MINIO_USE_SSL', /expected true or false/],
  ])('stops start-up for %j', (ini, key, message) => {
    const error = configError(() => load(ini));
    expect(error.key).toBe(key);
    expect(error.message).toMatch(message);
  });

  it('accepts Gitea\'s storage sections and keys without warnings', () => {
    const { warnings } = load('[storage]\nSERVE_DIRECT = false\nMINIO_CHECKSUM_ALGORITHM = default\n[storage.repo-archive]\nSTORAGE_TYPE = local\n[attachment]\nAZURE_BLOB_CONTAINER = x\n');
    expect(warnings).toEqual([]);
    expect(load('[storage]\nPATHS = typo\n').warnings).toEqual([expect.stringContaining('unknown setting [storage] PATHS')]);
  });
});

describe('[mailer]', () => {
  it('is off by default, with Gitea\'s defaults', () => {
    const { config } = load();
    expect(config.mailer).toMatchObject({ enabled: false, protocol: 'smtps', smtpPort: 465, from: '', sendmailPath: 'sendmail', mailDir: undefined });
    expect(config.mailer.dummyDir).toBe(path.join(config.workDir, 'mail'));
    expect(config.admin.defaultEmailNotifications).toBe('enabled');
  });

  it.each([
    ['PROTOCOL = smtp', 'smtp', 25],
    ['PROTOCOL = smtps', 'smtps', 465],
    ['PROTOCOL = smtp+starttls', 'smtp+starttls', 587],
    ['SMTP_PORT = 25', 'smtp', 25],
    ['SMTP_PORT = 587', 'smtp+starttls', 587],
    ['SMTP_PORT = 2525', 'smtps', 2525],
    ['PROTOCOL = smtp\nSMTP_PORT = 2525', 'smtp', 2525],
  ])('infers protocol and port as Gitea from %j', (lines, protocol, port) => {
    const { config } = load(`[mailer]\nENABLED = true\nSMTP_ADDR = mail.example.com\nFROM = Cairn <cairn@example.com>\n${lines}\n`);
    expect(config.mailer).toMatchObject({ enabled: true, protocol, smtpPort: port, smtpAddr: 'mail.example.com' });
  });

  it('takes FROM from USER, MAIL_DIR under the work dir, and keeps the password out of dumps', () => {
    const { config } = load('[mailer]\nENABLED = true\nPROTOCOL = dummy\nUSER = bot@example.com\nPASSWD = do-not-print-me\nMAIL_DIR = outbox\n');
    expect(config.mailer).toMatchObject({ from: 'bot@example.com', protocol: 'dummy', mailDir: path.join(config.workDir, 'outbox'), dummyDir: path.join(config.workDir, 'outbox') });
    expect(config.mailer.passwd).toBe('do-not-print-me');
    expect(JSON.stringify(config)).not.toContain('do-not-print-me');
    expect(inspect(config, { depth: Infinity })).not.toContain('do-not-print-me');
  });

  it('warns, as Gitea logs, when the mailer is on without FROM (or USER)', () => {
    const { config, warnings } = load('[mailer]\nENABLED = true\nPROTOCOL = dummy\n');
    expect(config.mailer).toMatchObject({ enabled: true, from: '' });
    expect(warnings).toEqual([expect.stringContaining('no [mailer] FROM (or USER) provided')]);
  });

  it('reads [admin] DEFAULT_EMAIL_NOTIFICATIONS and accepts Gitea\'s other [admin] and [mailer] keys', () => {
    const { config, warnings } = load('[admin]\nDEFAULT_EMAIL_NOTIFICATIONS = onmention\nDISABLE_REGULAR_ORG_CREATION = false\n[mailer]\nENABLE_HELO = true\n');
    expect(config.admin.defaultEmailNotifications).toBe('onmention');
    expect(warnings).toEqual([]);
  });

  it.each([
    ['[mailer]\nPROTOCOL = pigeon\n', 'mailer.PROTOCOL', /expected one of smtp, smtps, smtp\+starttls, smtp\+unix, sendmail, dummy/],
    ['[mailer]\nPROTOCOL = smtp+unix\n', 'mailer.PROTOCOL', /not supported by Cairn/],
    ['[mailer]\nSMTP_PORT = 70000\n', 'mailer.SMTP_PORT', /expected an integer from 0 to 65535/],
    ['[mailer]\nFROM = not an address\n', 'mailer.FROM', /expected an e-mail address/],
    ['[mailer]\nENABLED = true\nPROTOCOL = smtp\nFROM = a@example.com\n', 'mailer.SMTP_ADDR', /SMTP_ADDR is required/],
    ['[mailer]\nENABLED = maybe\n', 'mailer.ENABLED', /expected true or false/],
    ['[admin]\nDEFAULT_EMAIL_NOTIFICATIONS = always\n', 'admin.DEFAULT_EMAIL_NOTIFICATIONS', /expected one of enabled, onmention, disabled, andyourown/],
  ])('stops start-up for %j', (ini, key, message) => {
    const error = configError(() => load(ini));
    expect(error.key).toBe(key);
    expect(error.message).toMatch(message);
  });
});
