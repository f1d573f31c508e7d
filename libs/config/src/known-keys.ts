/**
 * Which app.ini keys Cairn knows: the ones it reads, plus Gitea keys it accepts and ignores, so an operator's
 * existing Gitea app.ini loads without a flood of "unknown setting" warnings. Anything else is warned about.
 * A key ending in `*` matches by prefix.
 */
import { DEFAULT_SECTION, type RawSections, describeSetting } from './raw-sections';
import { GRPC_SERVICES } from './types';

/**
 * The keys of `[storage]`, of every `[storage.<name>]` and of a storage's own section (Gitea's setting/storage.go):
 * Cairn reads STORAGE_TYPE, PATH and MINIO_*; SERVE_DIRECT, MINIO_CHECKSUM_ALGORITHM, MINIO_BUCKET_LOOKUP_TYPE,
 * MINIO_IAM_ENDPOINT, TEMPORARY_PATH and AZURE_BLOB_* are accepted and ignored.
 */
const STORAGE_KEYS: readonly string[] = ['STORAGE_TYPE', 'PATH', 'MINIO_*', 'SERVE_DIRECT', 'TEMPORARY_PATH', 'AZURE_BLOB_*'];

/** Sections Cairn reads, with every key it accepts in them. */
const KNOWN_KEYS: Record<string, readonly string[]> = {
  [DEFAULT_SECTION]: ['APP_NAME', 'RUN_MODE', 'RUN_USER', 'WORK_PATH', 'APP_SLOGAN', 'APP_DISPLAY_NAME_FORMAT'],
  server: [
    'PROTOCOL', 'DOMAIN', 'ROOT_URL', 'HTTP_ADDR', 'HTTP_PORT', 'DISABLE_HTTP_GIT', 'LFS_START_SERVER', 'MAX_BODY_SIZE',
    // Gitea keys Cairn ignores.
    'STATIC_URL_PREFIX', 'REDIRECT_OTHER_PORT', 'PORT_TO_REDIRECT', 'REDIRECTOR_USE_PROXY_PROTOCOL',
    'USE_PROXY_PROTOCOL', 'PROXY_PROTOCOL_*', 'SSL_*', 'PER_WRITE_TIMEOUT', 'PER_WRITE_PER_KB_TIMEOUT',
    'UNIX_SOCKET_PERMISSION', 'LOCAL_ROOT_URL', 'LOCAL_USE_PROXY_PROTOCOL', 'DISABLE_SSH', 'START_SSH_SERVER',
    'BUILTIN_SSH_SERVER_USER', 'SSH_*', 'MINIMUM_KEY_SIZE_CHECK', 'OFFLINE_MODE', 'ENABLE_ACME', 'ACME_*',
    'CERT_FILE', 'KEY_FILE', 'STATIC_ROOT_PATH', 'APP_DATA_PATH', 'ENABLE_GZIP', 'ENABLE_PPROF', 'PPROF_DATA_PATH',
    'LANDING_PAGE', 'LFS_*', 'ALLOW_GRACEFUL_RESTARTS', 'GRACEFUL_HAMMER_TIME', 'STARTUP_TIMEOUT',
    'STATIC_CACHE_TIME', 'DISABLE_ROUTER_LOG', 'ENABLE_PROXY_PROTOCOL',
  ],
  database: [
    'URL', 'MAX_OPEN_CONNS', 'DB_TYPE', 'HOST', 'NAME', 'USER', 'PASSWD', 'SSL_MODE',
    'SCHEMA', 'CHARSET', 'PATH', 'SQLITE_TIMEOUT', 'SQLITE_JOURNAL_MODE', 'ITERATE_BUFFER_SIZE', 'LOG_SQL',
    'DB_RETRIES', 'DB_RETRY_BACKOFF', 'MAX_IDLE_CONNS', 'CONN_MAX_LIFETIME', 'CONN_MAX_IDLETIME', 'AUTO_MIGRATION',
    'SLOW_QUERY_THRESHOLD',
  ],
  bus: [
    'URL', 'USER', 'PASSWORD', 'TOKEN', 'NKEY_SEED_FILE', 'CREDS_FILE', 'PREFIX', 'STREAM_MAX_AGE', 'STREAM_MAX_BYTES',
    'EVENTS_MAX_AGE', 'EVENTS_MAX_BYTES', 'STREAM_REPLICAS',
  ],
  rpc: ['DEADLINE_MS', 'GIT_WRITE_DEADLINE_MS', 'KEYS_DIR'],
  // LISTEN is Cairn's (Gitea serves /metrics on its HTTP port); the ENABLED_ISSUE_* gauges are Gitea's and ignored.
  metrics: ['ENABLED', 'LISTEN', 'TOKEN', 'ENABLED_ISSUE_BY_LABEL', 'ENABLED_ISSUE_BY_REPOSITORY'],
  log: [
    'LEVEL',
    'MODE', 'ROOT_PATH', 'STACKTRACE_LEVEL', 'BUFFER_LEN', 'ENABLE_SSH_LOG', 'REQUEST_ID_HEADERS',
    'ACCESS_LOG_TEMPLATE', 'ENABLE_ACCESS_LOG', 'ACCESS', 'ROUTER', 'ENABLE_XORM_LOG', 'XORM', 'FLAGS',
    'EXPRESSION', 'PREFIX', 'COLORIZE', 'LOGGER.*',
  ],
  api: [
    'ENABLE_SWAGGER', 'MAX_RESPONSE_ITEMS', 'DEFAULT_PAGING_NUM', 'DEFAULT_GIT_TREES_PER_PAGE',
    'DEFAULT_MAX_BLOB_SIZE', 'DEFAULT_MAX_RESPONSE_SIZE',
  ],
  ui: [
    'EXPLORE_PAGING_NUM', 'ISSUE_PAGING_NUM', 'REPO_SEARCH_PAGING_NUM', 'MEMBERS_PAGING_NUM', 'FEED_PAGING_NUM',
    'DEFAULT_THEME', 'REACTIONS', 'CUSTOM_EMOJIS', 'SHOW_USER_EMAIL',
    'FEED_MAX_COMMIT_NUM', 'PACKAGES_PAGING_NUM', 'SITEMAP_PAGING_NUM', 'GRAPH_MAX_COMMIT_NUM',
    'CODE_COMMENT_LINES', 'MAX_DISPLAY_FILE_SIZE', 'THEMES', 'DEFAULT_SHOW_FULL_NAME', 'SEARCH_REPO_DESCRIPTION',
    'ONLY_SHOW_RELEVANT_REPOS', 'AMBIGUOUS_UNICODE_DETECTION', 'EXPLORE_PAGING_DEFAULT_SORT',
    'PREFERRED_TIMESTAMP_TENSE', 'USE_SERVICE_WORKER',
  ],
  'ui.explore': ['REQUIRE_SIGNIN_VIEW', 'DISABLE_USERS_PAGE'],
  'service.explore': ['REQUIRE_SIGNIN_VIEW', 'DISABLE_USERS_PAGE', 'DISABLE_ORGANIZATIONS_PAGE', 'DISABLE_CODE_PAGE'],
  service: [
    'REQUIRE_SIGNIN_VIEW', 'ENABLE_BASIC_AUTHENTICATION', 'USER_DELETE_WITH_COMMENTS_MAX_TIME',
    'DEFAULT_USER_IS_RESTRICTED', 'DEFAULT_USER_VISIBILITY', 'DEFAULT_ORG_VISIBILITY',
    'DEFAULT_ALLOW_CREATE_ORGANIZATION', 'ENABLE_TIMETRACKING', 'ENABLE_USER_HEATMAP', 'AUTO_WATCH_NEW_REPOS',
    'ACTIVE_CODE_LIVE_MINUTES', 'RESET_PASSWD_CODE_LIVE_MINUTES', 'REGISTER_EMAIL_CONFIRM',
    'REGISTER_MANUAL_CONFIRM', 'EMAIL_DOMAIN_*', 'DISABLE_REGISTRATION', 'ALLOW_ONLY_INTERNAL_REGISTRATION',
    'ALLOW_ONLY_EXTERNAL_REGISTRATION', 'ENABLE_NOTIFY_MAIL', 'ENABLE_REVERSE_PROXY_*', 'ENABLE_CAPTCHA',
    'REQUIRE_CAPTCHA_FOR_LOGIN', 'REQUIRE_EXTERNAL_REGISTRATION_*', 'CAPTCHA_TYPE', 'RECAPTCHA_*', 'HCAPTCHA_*',
    'MCAPTCHA_*', 'CF_TURNSTILE_*', 'DEFAULT_KEEP_EMAIL_PRIVATE', 'ALLOWED_USER_VISIBILITY_MODES',
    'DEFAULT_ORG_MEMBER_VISIBLE', 'DEFAULT_ENABLE_DEPENDENCIES', 'ALLOW_CROSS_REPOSITORY_DEPENDENCIES',
    'DEFAULT_ENABLE_TIMETRACKING', 'DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME', 'NO_REPLY_ADDRESS',
    'SHOW_REGISTRATION_BUTTON', 'SHOW_MILESTONES_DASHBOARD_PAGE', 'AUTO_WATCH_ON_CHANGES',
    'VALID_SITE_URL_SCHEMES', 'ENABLE_INTERNAL_SIGNIN', 'ENABLE_PASSWORD_SIGNIN_FORM',
    'ENABLE_PASSKEY_AUTHENTICATION', 'USER_LOCATION_MAP_URL',
  ],
  security: [
    'DISABLE_WEB_HOOKS', 'DISABLE_WEBHOOKS', 'DISABLE_QUERY_AUTH_TOKEN', 'MIN_PASSWORD_LENGTH',
    'LOGIN_MAX_FAILURES', 'LOGIN_MAX_ACCOUNT_FAILURES', 'LOGIN_MAX_ADDRESS_FAILURES', 'LOGIN_FAILURE_WINDOW_SECONDS',
    'LOGIN_BLOCK_SECONDS', 'LOGIN_KNOWN_ADDRESS_DAYS', 'PASSWORD_CHECK_CONCURRENCY', 'PASSWORD_CHECK_QUEUE',
    'INSTALL_LOCK', 'SECRET_KEY', 'SECRET_KEY_URI', 'INTERNAL_TOKEN', 'INTERNAL_TOKEN_URI', 'LOGIN_REMEMBER_DAYS',
    'COOKIE_USERNAME', 'COOKIE_REMEMBER_NAME', 'REVERSE_PROXY_*', 'IMPORT_LOCAL_PATHS', 'DISABLE_GIT_HOOKS',
    'ONLY_ALLOW_PUSH_IF_GITEA_ENVIRONMENT_SET', 'PASSWORD_COMPLEXITY', 'PASSWORD_HASH_ALGO',
    'CSRF_COOKIE_HTTP_ONLY', 'PASSWORD_CHECK_PWN', 'SUCCESSFUL_TOKENS_CACHE_SIZE', 'TWO_FACTOR_AUTH',
  ],
  repository: [
    'DISABLE_MIGRATIONS', 'DEFAULT_REPO_UNITS', 'DISABLED_REPO_UNITS', 'DEFAULT_BRANCH', 'DISABLE_STARS',
    'FORCE_PRIVATE', 'MAX_CREATION_LIMIT', 'DISABLE_HTTP_GIT',
    'ROOT', 'SCRIPT_TYPE', 'DETECTED_CHARSETS_ORDER', 'ANSI_CHARSET', 'DEFAULT_PRIVATE',
    'DEFAULT_PUSH_CREATE_PRIVATE', 'PREFERRED_LICENSES', 'ACCESS_CONTROL_ALLOW_ORIGIN', 'USE_COMPAT_SSH_URI',
    'GO_GET_CLONE_URL_PROTOCOL', 'DEFAULT_FORK_REPO_UNITS', 'DEFAULT_MIRROR_REPO_UNITS',
    'DEFAULT_TEMPLATE_REPO_UNITS', 'PREFIX_ARCHIVE_FILES', 'ALLOW_ADOPTION_OF_UNADOPTED_REPOSITORIES',
    'ALLOW_DELETION_OF_UNADOPTED_REPOSITORIES', 'DISABLE_DOWNLOAD_SOURCE_ARCHIVES',
    'ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT', 'ALLOW_FORK_INTO_SAME_OWNER', 'DISABLE_MIRRORS', 'ENABLE_PUSH_CREATE_USER',
    'ENABLE_PUSH_CREATE_ORG', 'DEFAULT_CLOSE_ISSUES_VIA_COMMITS_IN_ANY_BRANCH', 'MAX_FORKS_PER_USER',
    // Cairn's own.
    'MAX_PUSH_SIZE',
  ],
  // Cairn reads GC_ARGS and its own MAX_CONCURRENT_TRANSFERS / MAX_QUEUED_TRANSFERS; Gitea's other keys are ignored.
  git: [
    'GC_ARGS', 'MAX_CONCURRENT_TRANSFERS', 'MAX_QUEUED_TRANSFERS',
    'PATH', 'HOME_PATH', 'DISABLE_DIFF_HIGHLIGHT', 'MAX_GIT_DIFF_LINES', 'MAX_GIT_DIFF_LINE_CHARACTERS',
    'MAX_GIT_DIFF_FILES', 'COMMITS_RANGE_SIZE', 'BRANCHES_RANGE_SIZE', 'VERBOSE_PUSH', 'VERBOSE_PUSH_DELAY',
    'ENABLE_AUTO_GIT_WIRE_PROTOCOL', 'PULL_REQUEST_PUSH_MESSAGE', 'LARGE_OBJECT_THRESHOLD', 'DISABLE_CORE_PROTECT_NTFS',
    'DISABLE_PARTIAL_CLONE',
  ],
  // DEFAULT, GC, MIGRATE and MIRROR are Gitea's, TRANSFER and IDLE Cairn's; CLONE and PULL are accepted and ignored.
  'git.timeout': ['DEFAULT', 'GC', 'TRANSFER', 'IDLE', 'MIGRATE', 'MIRROR', 'CLONE', 'PULL'],
  'cron.git_gc_repos': ['ENABLED', 'RUN_AT_START', 'SCHEDULE', 'TIMEOUT', 'ARGS', 'NOTICE_ON_SUCCESS'],
  // Cairn reads the key, the signer, the format, MERGES and DEFAULT_TRUST_MODEL; the rules of the commits it does not
  // sign (initial commits, file edits, wikis) and TRUSTED_SSH_KEYS are Gitea's, accepted and ignored.
  // Cairn reads MAX_PINNED; LOCK_REASONS is Gitea's web UI list, accepted and ignored.
  'repository.issue': ['MAX_PINNED', 'LOCK_REASONS'],
  // Cairn reads ALLOWED_TYPES (release assets); the page size is [api]'s.
  'repository.release': ['ALLOWED_TYPES', 'DEFAULT_PAGING_NUM'],
  'repository.signing': [
    'SIGNING_KEY', 'SIGNING_NAME', 'SIGNING_EMAIL', 'SIGNING_FORMAT', 'MERGES', 'DEFAULT_TRUST_MODEL',
    'INITIAL_COMMIT', 'CRUD_ACTIONS', 'WIKI', 'TRUSTED_SSH_KEYS',
  ],
  // Cairn reads ADD_CO_COMMITTER_TRAILERS, CLOSE_KEYWORDS and REOPEN_KEYWORDS; Gitea's other pull-request settings are
  // accepted and ignored.
  'repository.pull-request': [
    'ADD_CO_COMMITTER_TRAILERS', 'WORK_IN_PROGRESS_PREFIXES', 'CLOSE_KEYWORDS', 'REOPEN_KEYWORDS', 'DEFAULT_MERGE_STYLE',
    'DEFAULT_MERGE_MESSAGE_COMMITS_LIMIT', 'DEFAULT_MERGE_MESSAGE_SIZE', 'DEFAULT_MERGE_MESSAGE_ALL_AUTHORS',
    'DEFAULT_MERGE_MESSAGE_MAX_APPROVERS', 'DEFAULT_MERGE_MESSAGE_OFFICIAL_APPROVERS_ONLY', 'DEFAULT_UPDATE_STYLE',
    'POPULATE_SQUASH_COMMENT_WITH_COMMIT_MESSAGES', 'TEST_CONFLICTING_PATCHES_WITH_GIT_APPLY',
    'RETARGET_CHILDREN_ON_MERGE', 'DELAY_CHECK_FOR_INACTIVE_DAYS',
  ],
  migrations: [
    'ALLOWED_DOMAINS', 'BLOCKED_DOMAINS', 'ALLOW_LOCALNETWORKS', 'MAX_ATTEMPTS', 'RETRY_BACKOFF', 'SKIP_TLS_VERIFY',
  ],
  mirror: ['ENABLED', 'MIN_INTERVAL', 'DEFAULT_INTERVAL', 'DISABLE_NEW_PULL', 'DISABLE_NEW_PUSH'],
  webhook: [
    'ALLOWED_HOST_LIST', 'DELIVER_TIMEOUT', 'QUEUE_LENGTH', 'SKIP_TLS_VERIFY', 'PAGING_NUM', 'PROXY_URL',
    'PROXY_HOSTS', 'DELIVERY_ATTEMPTS', 'RETRY_BACKOFF',
  ],
  // Gitea's keys Cairn reads, Cairn's own (MAIL_DIR, SEND_ATTEMPTS, RETRY_BACKOFF), and Gitea's it ignores.
  mailer: [
    'ENABLED', 'PROTOCOL', 'SMTP_ADDR', 'SMTP_PORT', 'USER', 'PASSWD', 'FROM', 'SUBJECT_PREFIX', 'SENDMAIL_PATH',
    'SENDMAIL_TIMEOUT', 'FORCE_TRUST_SERVER_CERT', 'MAIL_DIR', 'SEND_ATTEMPTS', 'RETRY_BACKOFF',
    'NAME', 'ENVELOPE_FROM', 'SEND_AS_PLAIN_TEXT', 'ENABLE_HELO', 'HELO_HOSTNAME', 'USE_CLIENT_CERT', 'CLIENT_CERT_FILE',
    'CLIENT_KEY_FILE', 'SENDMAIL_ARGS', 'SENDMAIL_CONVERT_CRLF', 'FROM_NAME',
  ],
  // Cairn reads DEFAULT_EMAIL_NOTIFICATIONS; Gitea's other [admin] keys are accepted and ignored.
  admin: ['*'],
  attachment: ['ENABLED', 'ALLOWED_TYPES', 'MAX_SIZE', 'MAX_FILES', ...STORAGE_KEYS],
  storage: STORAGE_KEYS,
  // Cairn reads only ENABLED here (it removes the matching repository unit); every other key is Gitea's.
  packages: ['*'],
  actions: ['*'],
  ...Object.fromEntries(GRPC_SERVICES.map((name) => [`services.${name}`, ['LISTEN', 'ADDR']])),
};

/** Gitea sections Cairn ignores as a whole (an entry ending in `.` matches every subsection). */
const IGNORED_SECTIONS: readonly string[] = [
  'badges', 'cache', 'cache.', 'camo', 'cors', 'cron', 'cron.', 'email.', 'federation', 'git.',
  'highlight.', 'i18n', 'indexer', 'lfs', 'lfs.', 'lfs_client', 'log.', 'markdown', 'markup', 'markup.',
  'oauth2', 'oauth2_client', 'openid', 'other', 'picture', 'project', 'proxy', 'queue', 'queue.',
  'repo-archive', 'repository.', 'session', 'ssh.', 'task', 'time', 'ui.', 'avatar',
];

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

/** Whether `[section] KEY` is a setting Cairn reads or knowingly ignores. */
export function isKnownSetting(section: string, key: string): boolean {
  const keys = KNOWN_KEYS[section] ?? (section.startsWith('storage.') ? STORAGE_KEYS : undefined);
  if (keys) return keys.some((pattern) => matches(pattern, key));
  return IGNORED_SECTIONS.some((pattern) => (pattern.endsWith('.') ? section.startsWith(pattern) : pattern === section));
}

/** One warning per setting Cairn does not know, naming where it came from. */
export function unknownSettingWarnings(sections: RawSections, configPath: string): string[] {
  const warnings: string[] = [];
  for (const [section, keys] of sections) {
    for (const [key, raw] of keys) {
      if (isKnownSetting(section, key)) continue;
      const origin = raw.envVar ? `environment variable ${raw.envVar}` : configPath;
      warnings.push(`unknown setting ${describeSetting(section, key)} in ${origin} is ignored`);
    }
  }
  return warnings;
}
