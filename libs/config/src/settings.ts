/**
 * Builds the typed CairnConfig from the raw settings: every contract setting with its default
 * (RUN-CONTRACT.md, Gitea's modules/setting/*.go), aliases for Gitea's own spellings, and validation.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from './errors';
import { readDatabaseUrl } from './database-url';
import { readServiceEndpoints } from './endpoints';
import { DEFAULT_SECTION } from './raw-sections';
import { resolveRepoUnits } from './repo-units';
import type { SettingsReader } from './settings-reader';
import { readDefaultEmailNotifications, readMailer } from './mailer';
import { readObjectStorage } from './storage';
import { type BusAuth, type CairnConfig, MERGE_SIGNING_RULES, type MergeSigningRule, TRUST_MODELS } from './types';
import {
  type HostPort,
  formatHostPort,
  parseBoolean,
  parseDuration,
  parseHost,
  parseHostPort,
  parseList,
  parseTrustedProxies,
  parseUrl,
} from './values';

export const VISIBILITIES = ['public', 'limited', 'private'] as const;
export const RUN_MODES = ['prod', 'dev'] as const;
/** pino's levels; Gitea's spellings (warning, critical, none) map onto them. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
const LOG_LEVEL_ALIASES = { warning: 'warn', critical: 'fatal', none: 'silent' } as const;

export const DEFAULT_ATTACHMENT_ALLOWED_TYPES =
  '.avif,.cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,.mp4,' +
  '.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip';
/** `[repository.pull-request] CLOSE_KEYWORDS` and `REOPEN_KEYWORDS` defaults (Gitea's setting/repository.go). */
export const DEFAULT_CLOSE_KEYWORDS: readonly string[] = ['close', 'closes', 'closed', 'fix', 'fixes', 'fixed', 'resolve', 'resolves', 'resolved'];
export const DEFAULT_REOPEN_KEYWORDS: readonly string[] = ['reopen', 'reopens', 'reopened'];
export const DEFAULT_REACTIONS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'];
export const DEFAULT_CUSTOM_EMOJIS = ['git', 'gitea', 'codeberg', 'gitlab', 'github', 'gogs'];

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const PORT = { min: 0, max: 65535 };
const POSITIVE = { min: 1 };
const NON_NEGATIVE = { min: 0 };

export function readSettings(
  reader: SettingsReader,
  paths: { workDir: string; configPath: string; gnupgHome?: string },
  warnings: string[],
): CairnConfig {
  const server = readServer(reader);
  return {
    workDir: paths.workDir,
    configPath: paths.configPath,
    appName: reader.string(DEFAULT_SECTION, 'APP_NAME', 'Cairn'),
    runMode: reader.choice(DEFAULT_SECTION, 'RUN_MODE', 'prod', RUN_MODES),
    server,
    database: {
      url: readDatabaseUrl(reader, warnings),
      maxOpenConns: reader.integer('database', 'MAX_OPEN_CONNS', 10, POSITIVE),
    },
    bus: readBus(reader, paths.workDir),
    log: { level: reader.choice('log', 'LEVEL', 'info', LOG_LEVELS, LOG_LEVEL_ALIASES) },
    api: {
      enableSwagger: reader.boolean('api', 'ENABLE_SWAGGER', true),
      maxResponseItems: reader.integer('api', 'MAX_RESPONSE_ITEMS', 50, POSITIVE),
      defaultPagingNum: reader.integer('api', 'DEFAULT_PAGING_NUM', 30, POSITIVE),
      defaultGitTreesPerPage: reader.integer('api', 'DEFAULT_GIT_TREES_PER_PAGE', 1000, POSITIVE),
      defaultMaxBlobSize: reader.integer('api', 'DEFAULT_MAX_BLOB_SIZE', 10_485_760, NON_NEGATIVE),
      defaultMaxResponseSize: reader.integer('api', 'DEFAULT_MAX_RESPONSE_SIZE', 104_857_600, NON_NEGATIVE),
    },
    ui: {
      explorePagingNum: reader.integer('ui', 'EXPLORE_PAGING_NUM', 20, POSITIVE),
      issuePagingNum: reader.integer('ui', 'ISSUE_PAGING_NUM', 20, POSITIVE),
      repoSearchPagingNum: reader.integer('ui', 'REPO_SEARCH_PAGING_NUM', 20, POSITIVE),
      membersPagingNum: reader.integer('ui', 'MEMBERS_PAGING_NUM', 20, POSITIVE),
      feedPagingNum: reader.integer('ui', 'FEED_PAGING_NUM', 20, POSITIVE),
      defaultTheme: reader.string('ui', 'DEFAULT_THEME', 'gitea-auto'),
      reactions: reader.list('ui', 'REACTIONS', DEFAULT_REACTIONS),
      customEmojis: reader.list('ui', 'CUSTOM_EMOJIS', DEFAULT_CUSTOM_EMOJIS),
      showUserEmail: reader.boolean('ui', 'SHOW_USER_EMAIL', true),
      // Gitea's CutDiffAroundLine: 0 keeps no excerpt at all.
      codeCommentLines: reader.integer('ui', 'CODE_COMMENT_LINES', 4, NON_NEGATIVE),
    },
    // The contract's [ui.explore] wins over Gitea's [service.explore].
    explore: {
      requireSigninView: reader.boolean(
        'ui.explore',
        'REQUIRE_SIGNIN_VIEW',
        reader.boolean('service.explore', 'REQUIRE_SIGNIN_VIEW', false),
      ),
      disableUsersPage: reader.boolean(
        'ui.explore',
        'DISABLE_USERS_PAGE',
        reader.boolean('service.explore', 'DISABLE_USERS_PAGE', false),
      ),
    },
    service: {
      // "expensive" only hides costly web pages in Gitea; the API stays open.
      requireSigninView: reader.parse(
        'service',
        'REQUIRE_SIGNIN_VIEW',
        false,
        (text) => (text.toLowerCase() === 'expensive' ? false : parseBoolean(text)),
        'expected true, false or expensive',
      ),
      enableBasicAuthentication: reader.boolean('service', 'ENABLE_BASIC_AUTHENTICATION', true),
      userDeleteWithCommentsMaxTime: reader.duration('service', 'USER_DELETE_WITH_COMMENTS_MAX_TIME', 0, {
        bareSeconds: true,
      }),
      defaultUserIsRestricted: reader.boolean('service', 'DEFAULT_USER_IS_RESTRICTED', false),
      defaultUserVisibility: reader.choice('service', 'DEFAULT_USER_VISIBILITY', 'public', VISIBILITIES),
      defaultOrgVisibility: reader.choice('service', 'DEFAULT_ORG_VISIBILITY', 'public', VISIBILITIES),
      defaultAllowCreateOrganization: reader.boolean('service', 'DEFAULT_ALLOW_CREATE_ORGANIZATION', true),
      defaultOrgMemberVisible: reader.boolean('service', 'DEFAULT_ORG_MEMBER_VISIBLE', false),
      enableTimetracking: reader.boolean('service', 'ENABLE_TIMETRACKING', true),
      enableUserHeatmap: reader.boolean('service', 'ENABLE_USER_HEATMAP', true),
      autoWatchNewRepos: reader.boolean('service', 'AUTO_WATCH_NEW_REPOS', true),
      // DOMAIN itself is checked with ROOT_URL (readServer).
      noReplyAddress: reader.string('service', 'NO_REPLY_ADDRESS', `noreply.${reader.string('server', 'DOMAIN', 'localhost')}`),
    },
    security: {
      disableWebhooks: reader.boolean(
        'security',
        'DISABLE_WEB_HOOKS',
        reader.boolean('security', 'DISABLE_WEBHOOKS', false),
      ),
      disableQueryAuthToken: reader.boolean('security', 'DISABLE_QUERY_AUTH_TOKEN', false),
      minPasswordLength: reader.integer('security', 'MIN_PASSWORD_LENGTH', 8, POSITIVE),
      // Failed password sign-ins (0 turns a limit off): see services/accounts/src/domain/sign-in-throttle.ts.
      loginMaxFailures: reader.integer('security', 'LOGIN_MAX_FAILURES', 5, NON_NEGATIVE),
      loginMaxAccountFailures: reader.integer('security', 'LOGIN_MAX_ACCOUNT_FAILURES', 50, NON_NEGATIVE),
      loginMaxAddressFailures: reader.integer('security', 'LOGIN_MAX_ADDRESS_FAILURES', 100, NON_NEGATIVE),
      loginFailureWindowSeconds: reader.integer('security', 'LOGIN_FAILURE_WINDOW_SECONDS', 900, POSITIVE),
      loginBlockSeconds: reader.integer('security', 'LOGIN_BLOCK_SECONDS', 60, POSITIVE),
      loginKnownAddressDays: reader.integer('security', 'LOGIN_KNOWN_ADDRESS_DAYS', 30, { min: 0, max: 3650 }),
      passwordCheckConcurrency: reader.integer('security', 'PASSWORD_CHECK_CONCURRENCY', 2, POSITIVE),
      passwordCheckQueue: reader.integer('security', 'PASSWORD_CHECK_QUEUE', 32, NON_NEGATIVE),
      // Gitea's setting and default (modules/setting/security.go): loopback proxies only.
      reverseProxyTrustedProxies: reader.parse(
        'security',
        'REVERSE_PROXY_TRUSTED_PROXIES',
        ['127.0.0.0/8', '::1/128'],
        parseTrustedProxies,
        'expected a comma-separated list of IP addresses or CIDR ranges, or *',
      ),
    },
    repository: readRepository(reader, paths, warnings),
    migrations: {
      allowedDomains: reader.list('migrations', 'ALLOWED_DOMAINS', [], { lowerCase: true }),
      blockedDomains: reader.list('migrations', 'BLOCKED_DOMAINS', [], { lowerCase: true }),
      allowLocalnetworks: reader.boolean('migrations', 'ALLOW_LOCALNETWORKS', false),
    },
    mirror: readMirror(reader, warnings),
    webhook: {
      allowedHostList: reader.list('webhook', 'ALLOWED_HOST_LIST', ['external'], { lowerCase: true }),
      deliverTimeout: reader.integer('webhook', 'DELIVER_TIMEOUT', 5, POSITIVE),
      skipTlsVerify: reader.boolean('webhook', 'SKIP_TLS_VERIFY', false),
      deliveryAttempts: reader.integer('webhook', 'DELIVERY_ATTEMPTS', 5, POSITIVE),
      retryBackoff: reader.duration('webhook', 'RETRY_BACKOFF', 10_000),
    },
    attachment: {
      enabled: reader.boolean('attachment', 'ENABLED', true),
      allowedTypes: reader.string('attachment', 'ALLOWED_TYPES', DEFAULT_ATTACHMENT_ALLOWED_TYPES),
      maxSize: reader.integer('attachment', 'MAX_SIZE', 2048, POSITIVE),
      maxFiles: reader.integer('attachment', 'MAX_FILES', 5, POSITIVE),
      storage: readObjectStorage(reader, paths.workDir, 'attachments', 'attachment'),
    },
    git: readGit(reader),
    cron: { gitGcRepos: readGitGcCron(reader) },
    services: readServiceEndpoints(reader),
    rpc: {
      deadlineMs: reader.integer('rpc', 'DEADLINE_MS', 5000, POSITIVE),
      gitWriteDeadlineMs: reader.integer('rpc', 'GIT_WRITE_DEADLINE_MS', 60_000, POSITIVE),
      keysDir: path.resolve(paths.workDir, reader.string('rpc', 'KEYS_DIR', 'rpc-keys')),
    },
    mailer: readMailer(reader, paths.workDir, warnings),
    admin: { defaultEmailNotifications: readDefaultEmailNotifications(reader) },
    metrics: readMetrics(reader),
  };
}

/** Default port of every process's metrics server (the OpenTelemetry Prometheus exporter's port). */
export const DEFAULT_METRICS_PORT = 9464;

function readMetrics(reader: SettingsReader): CairnConfig['metrics'] {
  const listen = reader.parse<HostPort>(
    'metrics',
    'LISTEN',
    { host: '127.0.0.1', port: DEFAULT_METRICS_PORT },
    parseHostPort,
    'expected host:port with a port from 0 to 65535, e.g. 0.0.0.0:9464',
  );
  return {
    enabled: reader.boolean('metrics', 'ENABLED', false),
    listen: formatHostPort(listen),
    token: reader.string('metrics', 'TOKEN', ''),
  };
}

function readServer(reader: SettingsReader): CairnConfig['server'] {
  // Only validated: Cairn serves plain HTTP and leaves TLS to a reverse proxy.
  reader.choice('server', 'PROTOCOL', 'http', ['http'] as const);
  const httpPort = reader.integer('server', 'HTTP_PORT', 3000, PORT);
  return {
    httpAddr: reader.string('server', 'HTTP_ADDR', '0.0.0.0'),
    httpPort,
    rootUrl: readRootUrl(reader, httpPort),
    disableHttpGit: reader.boolean('repository', 'DISABLE_HTTP_GIT', reader.boolean('server', 'DISABLE_HTTP_GIT', false)),
    lfsStartServer: reader.boolean('server', 'LFS_START_SERVER', false),
    maxBodySize: reader.integer('server', 'MAX_BODY_SIZE', 10_485_760, POSITIVE),
  };
}

/** `[server] ROOT_URL`, an http(s) URL always ending in "/"; default as Gitea: http://<DOMAIN>:<HTTP_PORT>/. */
function readRootUrl(reader: SettingsReader, httpPort: number): string {
  const domain = reader.parse('server', 'DOMAIN', 'localhost', parseHost, 'expected a host name or IP address');
  const fallback = new URL(`http://${domain}:${httpPort}/`).href;
  return reader.parse(
    'server',
    'ROOT_URL',
    fallback,
    (text) => {
      const url = parseUrl(text, ['http:', 'https:']);
      if (!url || url.hostname === '' || url.search !== '' || url.hash !== '') return undefined;
      return url.href.endsWith('/') ? url.href : `${url.href}/`;
    },
    'expected an http:// or https:// URL without query or fragment',
  );
}

function readBus(reader: SettingsReader, workDir: string): CairnConfig['bus'] {
  const servers = reader.parse(
    'bus',
    'URL',
    [] as string[],
    (text) => {
      const urls = parseList(text);
      return urls.every((url) => parseUrl(url, ['nats:'])?.hostname) ? urls : undefined;
    },
    'expected a nats:// URL or a comma-separated list of them (empty selects the in-process bus)',
  );
  return {
    url: servers.join(','),
    servers,
    auth: readBusAuth(reader, workDir, servers.length > 0),
    prefix: reader.parse('bus', 'PREFIX', DEFAULT_BUS_PREFIX, (text) => (BUS_PREFIX_PATTERN.test(text) ? text : undefined), BUS_PREFIX_EXPECTED),
    streamMaxAgeMs: reader.duration('bus', 'STREAM_MAX_AGE', DEFAULT_STREAM_MAX_AGE_MS),
    streamMaxBytes: reader.integer('bus', 'STREAM_MAX_BYTES', DEFAULT_STREAM_MAX_BYTES, NON_NEGATIVE),
    eventsMaxAgeMs: reader.duration('bus', 'EVENTS_MAX_AGE', DEFAULT_EVENTS_MAX_AGE_MS),
    eventsMaxBytes: reader.integer('bus', 'EVENTS_MAX_BYTES', DEFAULT_EVENTS_MAX_BYTES, NON_NEGATIVE),
    streamReplicas: reader.integer('bus', 'STREAM_REPLICAS', 1, STREAM_REPLICAS_RANGE),
  };
}

/**
 * `[bus] PREFIX`: a NATS subject token that also heads stream and durable names (@cairn/bus namespace.ts), so no
 * `.`, wildcard, space or slash; lower-case only, since stream names take it upper-cased and must stay distinct.
 */
export const DEFAULT_BUS_PREFIX = 'cairn';
export const BUS_PREFIX_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const BUS_PREFIX_EXPECTED = 'expected 1-32 of a-z, 0-9, _ and -, starting with a letter or digit';
/**
 * `[bus] STREAM_MAX_AGE` default: 7 days, as long as a service's outbox keeps published events (relay.ts), so a
 * consumer that was down for up to a week still finds every event it missed; longer outages need a rebuild anyway.
 */
export const DEFAULT_STREAM_MAX_AGE_MS = 7 * 24 * HOUR_MS;
/**
 * `[bus] STREAM_MAX_BYTES` default: 1 GiB per stream. Events are small (mostly well under 1 KiB), so this holds
 * a million or more, far beyond a week of a busy instance, while bounding the disk of the 5 streams to 5 GiB.
 */
export const DEFAULT_STREAM_MAX_BYTES = 1024 * 1024 * 1024;
/**
 * `[bus] EVENTS_MAX_AGE` default: 30 days. The public event stream (its `events` kind) serves teams outside Cairn,
 * who replay from a point in time (a CI system back after a long weekend, an analytics backfill), so it keeps a month.
 */
export const DEFAULT_EVENTS_MAX_AGE_MS = 30 * 24 * HOUR_MS;
/**
 * `[bus] EVENTS_MAX_BYTES` default: 1 GiB per event stream, as for the internal ones. JetStream reserves a file
 * stream's max bytes on the server when the stream is created (a server with less storage left refuses it: "insufficient
 * storage resources available"), so the default fits a small NATS server; a busy instance raises it to keep its month.
 */
export const DEFAULT_EVENTS_MAX_BYTES = 1024 * 1024 * 1024;
/** `[bus] STREAM_REPLICAS`: JetStream keeps at most 5 copies of a stream (num_replicas 1..5). */
const STREAM_REPLICAS_RANGE = { min: 1, max: 5 };

const BUS_AUTH_KEYS = ['USER', 'PASSWORD', 'TOKEN', 'NKEY_SEED_FILE', 'CREDS_FILE'] as const;

/**
 * `[bus]` credentials: USER with PASSWORD, or TOKEN, or NKEY_SEED_FILE (a file holding an nkey seed), or
 * CREDS_FILE (a decentralised-auth `.creds` file with the user JWT and seed). One method at most, and only
 * with a URL: a credential the in-process bus would silently ignore is a mistake. Files are checked here
 * (relative paths from the work dir) so a wrong path stops start-up naming the key, not at the first connect.
 */
function readBusAuth(reader: SettingsReader, workDir: string, hasUrl: boolean): BusAuth {
  const set = BUS_AUTH_KEYS.filter((key) => reader.raw('bus', key) !== undefined);
  if (set.length === 0) return { kind: 'none' };
  if (!hasUrl) throw new ConfigError(`bus.${set[0]}`, `[bus] ${set.join(', ')} set without [bus] URL: credentials are only used with NATS`);
  const user = reader.string('bus', 'USER', '');
  const password = reader.string('bus', 'PASSWORD', '');
  if ((user === '') !== (password === '')) {
    throw new ConfigError(user === '' ? 'bus.USER' : 'bus.PASSWORD', '[bus] USER and PASSWORD must be set together');
  }
  const methods = set.filter((key) => key !== 'PASSWORD');
  if (methods.length > 1) {
    throw new ConfigError(`bus.${methods[1]}`, `[bus] ${methods.join(' and ')} are both set: choose one way to authenticate to NATS`);
  }
  if (user !== '') return { kind: 'password', user, password };
  const token = reader.string('bus', 'TOKEN', '');
  if (token !== '') return { kind: 'token', token };
  const readable = (text: string): string | undefined => {
    const file = path.resolve(workDir, text);
    try {
      fs.accessSync(file, fs.constants.R_OK);
      return fs.statSync(file).isFile() ? file : undefined;
    } catch {
      return undefined;
    }
  };
  const seedFile = reader.parse('bus', 'NKEY_SEED_FILE', '', readable, 'expected a readable file holding an nkey seed (SU…)');
  if (seedFile !== '') return { kind: 'nkey', seedFile };
  return { kind: 'creds', credsFile: reader.parse('bus', 'CREDS_FILE', '', readable, 'expected a readable NATS .creds file') };
}

function readRepository(reader: SettingsReader, paths: { workDir: string; gnupgHome?: string }, warnings: string[]): CairnConfig['repository'] {
  // As Gitea: turning off packages or actions disables their unit everywhere.
  const disabledUnits = reader.list('repository', 'DISABLED_REPO_UNITS', []);
  if (!reader.boolean('packages', 'ENABLED', true)) disabledUnits.push('repo.packages');
  if (!reader.boolean('actions', 'ENABLED', true)) disabledUnits.push('repo.actions');
  const units = resolveRepoUnits({
    defaultUnits: reader.list('repository', 'DEFAULT_REPO_UNITS', []),
    disabledUnits,
  });
  warnings.push(...units.warnings);
  if (units.defaultRepoUnits.length === 0) {
    throw new ConfigError(
      'repository.DEFAULT_REPO_UNITS',
      'no default repository units left: [repository] DEFAULT_REPO_UNITS names none that is allowed as a default and not in DISABLED_REPO_UNITS',
    );
  }
  return {
    disableMigrations: reader.boolean('repository', 'DISABLE_MIGRATIONS', false),
    defaultRepoUnits: units.defaultRepoUnits,
    disabledRepoUnits: units.disabledRepoUnits,
    defaultBranch: reader.string('repository', 'DEFAULT_BRANCH', 'main'),
    disableStars: reader.boolean('repository', 'DISABLE_STARS', false),
    forcePrivate: reader.boolean('repository', 'FORCE_PRIVATE', false),
    maxCreationLimit: reader.integer('repository', 'MAX_CREATION_LIMIT', -1, { min: -1 }),
    maxPushSize: reader.integer('repository', 'MAX_PUSH_SIZE', DEFAULT_MAX_PUSH_SIZE, NON_NEGATIVE),
    issue: { maxPinned: reader.integer('repository.issue', 'MAX_PINNED', 3, NON_NEGATIVE) },
    release: { allowedTypes: reader.string('repository.release', 'ALLOWED_TYPES', '') },
    signing: readSigning(reader, paths),
    pullRequest: {
      addCoCommitterTrailers: reader.boolean('repository.pull-request', 'ADD_CO_COMMITTER_TRAILERS', true),
      closeKeywords: reader.list('repository.pull-request', 'CLOSE_KEYWORDS', DEFAULT_CLOSE_KEYWORDS, { lowerCase: true }),
      reopenKeywords: reader.list('repository.pull-request', 'REOPEN_KEYWORDS', DEFAULT_REOPEN_KEYWORDS, { lowerCase: true }),
    },
  };
}

const DEFAULT_MERGE_SIGNING: readonly MergeSigningRule[] = ['pubkey', 'twofa', 'basesigned', 'commitssigned'];

/**
 * Gitea's signingModeFromStrings for MERGES, strictly: every entry must be a rule (Gitea drops unknown ones
 * silently; a typo here would quietly change what gets signed). The first "never" or "always" replaces the list.
 */
function parseMergeSigningRules(text: string): MergeSigningRule[] | undefined {
  const rules: MergeSigningRule[] = [];
  for (const word of parseList(text.toLowerCase())) {
    const rule = MERGE_SIGNING_RULES.find((candidate) => candidate === word);
    if (rule === undefined) return undefined;
    if (rule === 'never' || rule === 'always') return [rule];
    if (!rules.includes(rule)) rules.push(rule);
  }
  return rules.length === 0 ? ['never'] : rules;
}

/** `[repository.signing]` (Gitea's modules/setting/repository.go Signing), and where gpg finds the key. */
function readSigning(reader: SettingsReader, paths: { workDir: string; gnupgHome?: string }): CairnConfig['repository']['signing'] {
  const section = 'repository.signing';
  reader.parse(
    section,
    'SIGNING_FORMAT',
    'openpgp',
    (text) => (text.toLowerCase() === 'openpgp' ? 'openpgp' : undefined),
    'expected openpgp (Cairn signs with OpenPGP keys through gpg only; ssh signing is not supported)',
  );
  const home = path.join(paths.workDir, 'home');
  return {
    signingKey: reader.string(section, 'SIGNING_KEY', 'default'),
    signingName: reader.string(section, 'SIGNING_NAME', ''),
    signingEmail: reader.string(section, 'SIGNING_EMAIL', ''),
    format: 'openpgp',
    merges: reader.parse(
      section,
      'MERGES',
      [...DEFAULT_MERGE_SIGNING],
      parseMergeSigningRules,
      `expected a comma-separated list of ${MERGE_SIGNING_RULES.join(', ')}`,
    ),
    defaultTrustModel: reader.choice(section, 'DEFAULT_TRUST_MODEL', 'collaborator', TRUST_MODELS, { default: 'collaborator' }),
    home,
    gnupgHome: paths.gnupgHome ?? path.join(home, '.gnupg'),
  };
}

/** `[repository] MAX_PUSH_SIZE` default: 2 GiB, GitHub's limit on one push. */
export const DEFAULT_MAX_PUSH_SIZE = 2 * 1024 * 1024 * 1024;

const SECOND_MS = 1000;
const GIT_ARGS_EXPECTED =
  'expected long options separated by spaces, e.g. --aggressive, and no --prune (gc prunes after 2 weeks, which keeps it safe next to running pushes)';

/**
 * Options for `git gc`, split on white space: only long options, so no value can pass for a command or a path, and
 * no `--prune=<date>`: an early prune deletes the objects of a push that are in place but not yet named by a ref.
 */
function parseGitOptions(text: string): string[] | undefined {
  const words = text.split(/\s+/).filter((word) => word !== '');
  return words.every((word) => /^--[a-z][a-z0-9-]*(=\S+)?$/.test(word) && !/^--prune(=|$)/.test(word)) ? words : undefined;
}

/** `[git]` and `[git.timeout]` (Gitea's modules/setting/git.go: timeouts are whole seconds, DEFAULT 360, GC 60). */
function readGit(reader: SettingsReader): CairnConfig['git'] {
  const seconds = (key: string, fallback: number) => reader.integer('git.timeout', key, fallback, POSITIVE) * SECOND_MS;
  return {
    timeout: { default: seconds('DEFAULT', 360), gc: seconds('GC', 60), transfer: seconds('TRANSFER', 3600), idle: seconds('IDLE', 120), migrate: seconds('MIGRATE', 600), mirror: seconds('MIRROR', 300) },
    maxConcurrentTransfers: reader.integer('git', 'MAX_CONCURRENT_TRANSFERS', 32, POSITIVE),
    maxQueuedTransfers: reader.integer('git', 'MAX_QUEUED_TRANSFERS', 64, NON_NEGATIVE),
    gcArgs: reader.parse('git', 'GC_ARGS', [] as string[], parseGitOptions, GIT_ARGS_EXPECTED),
  };
}

/**
 * `[cron.git_gc_repos]` (Gitea's services/cron/tasks_extended.go: ENABLED true, RUN_AT_START false, SCHEDULE
 * @every 72h, TIMEOUT 60m, ARGS ""). Only `@every <duration>` schedules: a cron expression would be refused rather
 * than silently run at another time.
 */
function readGitGcCron(reader: SettingsReader): CairnConfig['cron']['gitGcRepos'] {
  const section = 'cron.git_gc_repos';
  return {
    enabled: reader.boolean(section, 'ENABLED', true),
    runAtStart: reader.boolean(section, 'RUN_AT_START', false),
    every: reader.parse(
      section,
      'SCHEDULE',
      72 * HOUR_MS,
      (text) => {
        const match = /^@every\s+(\S+)$/.exec(text);
        const every = match === null ? undefined : parseDuration(match[1]);
        return every !== undefined && every >= SECOND_MS ? every : undefined;
      },
      'expected @every <duration> of at least 1s, e.g. @every 72h (cron expressions are not supported)',
    ),
    timeout: reader.duration(section, 'TIMEOUT', 60 * MINUTE_MS),
    args: reader.parse(section, 'ARGS', [] as string[], parseGitOptions, GIT_ARGS_EXPECTED),
  };
}

/** Gitea's modules/setting/mirror.go: MIN_INTERVAL at least 1m; DEFAULT_INTERVAL not below MIN_INTERVAL. */
function readMirror(reader: SettingsReader, warnings: string[]): CairnConfig['mirror'] {
  let minInterval = reader.duration('mirror', 'MIN_INTERVAL', 10 * MINUTE_MS);
  if (minInterval < MINUTE_MS) {
    warnings.push('[mirror] MIN_INTERVAL is below 1m and was set to 1m');
    minInterval = MINUTE_MS;
  }
  let defaultInterval = reader.duration('mirror', 'DEFAULT_INTERVAL', 8 * HOUR_MS);
  if (defaultInterval < minInterval) {
    defaultInterval = Math.max(8 * HOUR_MS, minInterval);
    warnings.push(
      `[mirror] DEFAULT_INTERVAL is below MIN_INTERVAL and was set to ${defaultInterval / MINUTE_MS}m`,
    );
  }
  return {
    enabled: reader.boolean('mirror', 'ENABLED', true),
    disableNewPull: reader.boolean('mirror', 'DISABLE_NEW_PULL', false),
    disableNewPush: reader.boolean('mirror', 'DISABLE_NEW_PUSH', false),
    minInterval,
    defaultInterval,
  };
}
