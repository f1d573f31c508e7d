/**
 * The typed configuration every process reads. Section and key names are Gitea's app.ini names
 * (RUN-CONTRACT.md); `loadConfig` fills every field with its documented default.
 */

/**
 * Names of the services that serve gRPC (the gateway serves HTTP only), in start order (stopped in reverse). Every
 * process is given every service's address before any starts and clients connect on their first call, so services may
 * call each other in any direction (repos calls accounts and accounts calls repos); the order only lets the services
 * others call most (accounts first) serve before their callers take traffic and stop after them.
 */
export const GRPC_SERVICES = ['accounts', 'git-storage', 'repos', 'issues', 'social', 'notifications', 'hooks', 'migrations'] as const;
export type GrpcServiceName = (typeof GRPC_SERVICES)[number];

export interface ServiceEndpoint {
  /** `[services.<name>] LISTEN`: where the service binds its gRPC port (default 127.0.0.1:<default port>). */
  listen: string;
  /** `[services.<name>] ADDR`: where clients reach it (default = listen). */
  addr: string;
}

/** Gitea's `[repository.signing] MERGES` rules, in the order SignMerge checks them. */
export const MERGE_SIGNING_RULES = ['never', 'always', 'pubkey', 'twofa', 'approved', 'basesigned', 'headsigned', 'commitssigned'] as const;
export type MergeSigningRule = (typeof MERGE_SIGNING_RULES)[number];

/** Gitea's trust models (`[repository.signing] DEFAULT_TRUST_MODEL`); "default" reads as "collaborator". */
export const TRUST_MODELS = ['collaborator', 'committer', 'collaboratorcommitter'] as const;
export type TrustModel = (typeof TRUST_MODELS)[number];

export interface SigningConfig {
  /**
   * `SIGNING_KEY`: "default" (the key named by `user.signingkey` in `<home>/.gitconfig` when `commit.gpgsign` is
   * true there, as Gitea's git home), "none", or a key id, fingerprint or user id gpg knows. Default "default".
   */
  signingKey: string;
  /** `SIGNING_NAME` / `SIGNING_EMAIL`: the signer's identity with an explicit key (default ""). */
  signingName: string;
  signingEmail: string;
  /** `SIGNING_FORMAT`: only "openpgp" (the default); "ssh" stops start-up. */
  format: 'openpgp';
  /**
   * `MERGES`: when a pull request merge is signed (default pubkey, twofa, basesigned, commitssigned). As Gitea,
   * a "never" or "always" in the list replaces the whole list by itself (the first one written wins).
   */
  merges: MergeSigningRule[];
  /** `DEFAULT_TRUST_MODEL` (default collaborator): committer models make the signer a signed merge's committer. */
  defaultTrustModel: TrustModel;
  /** `<work dir>/home`: git-storage's git home (Gitea's `[git] HOME_PATH`), holding `.gitconfig`. */
  home: string;
  /** The GnuPG home gpg signs with: `$GNUPGHOME` when set, else `<home>/.gnupg`. */
  gnupgHome: string;
}

/** NATS credentials (`[bus]`); the file variants name files read when the bus connects. */
export type BusAuth =
  | { kind: 'none' }
  | { kind: 'password'; user: string; password: string }
  | { kind: 'token'; token: string }
  | { kind: 'nkey'; seedFile: string }
  | { kind: 'creds'; credsFile: string };

/**
 * Where an object store keeps its objects (Gitea's modules/setting/storage.go): a local directory, or an
 * S3-compatible bucket (`STORAGE_TYPE = minio`).
 */
export type ObjectStoreSettings =
  | { type: 'local'; path: string }
  | {
      type: 'minio';
      endpoint: string;
      accessKeyId: string;
      /** Not enumerable (libs/config storage.ts), so no dump of the configuration shows it; spreading drops it. */
      secretAccessKey: string;
      bucket: string;
      location: string;
      /** Key prefix inside the bucket (Gitea's MINIO_BASE_PATH, `attachments/` for attachments). */
      basePath: string;
      useSsl: boolean;
      insecureSkipVerify: boolean;
    };

export interface CairnConfig {
  /** `CAIRN_WORK_DIR` (default ./data), absolute. */
  workDir: string;
  /** `CAIRN_CONFIG` (default $CAIRN_WORK_DIR/app.ini), absolute; the file may not exist. */
  configPath: string;
  /** `[DEFAULT] APP_NAME` */
  appName: string;
  /** `[DEFAULT] RUN_MODE`: "prod" or "dev". */
  runMode: 'prod' | 'dev';
  server: {
    /** `[server] PROTOCOL` must be http (TLS ends at a proxy); default ROOT_URL uses `[server] DOMAIN` (localhost). */
    httpAddr: string; // HTTP_ADDR, default 0.0.0.0
    httpPort: number; // HTTP_PORT, default 3000
    /** ROOT_URL, always ends with "/"; default http://localhost:<port>/ */
    rootUrl: string;
    /** `[repository] DISABLE_HTTP_GIT` (Gitea's section); `[server] DISABLE_HTTP_GIT` is accepted too. */
    disableHttpGit: boolean;
    /** `[server] LFS_START_SERVER` (lfs_disabled = !this) */
    lfsStartServer: boolean;
    /** `[server] MAX_BODY_SIZE` bytes accepted in a JSON API body, default 10 MiB (Cairn's own key). */
    maxBodySize: number;
  };
  database: {
    /** `[database] URL`: postgres://…; empty selects the embedded PostgreSQL. */
    url: string;
    /** `[database] MAX_OPEN_CONNS`, default 10 (per service pool). */
    maxOpenConns: number;
  };
  bus: {
    /** `[bus] URL`: nats://… (or a comma-separated list of them); empty selects the in-process bus. */
    url: string;
    /** The URLs of `url`, one per NATS server ([] when empty). */
    servers: string[];
    /** How the bus authenticates to NATS: at most one of `[bus] USER`+`PASSWORD`, `TOKEN`, `NKEY_SEED_FILE`, `CREDS_FILE`. */
    auth: BusAuth;
    /** `[bus] PREFIX`, default `cairn`: heads every subject, stream and durable name, so installations can share a NATS server. */
    prefix: string;
    /** `[bus] STREAM_MAX_AGE` in ms, default 7 days (0: no limit): older events leave each stream. */
    streamMaxAgeMs: number;
    /** `[bus] STREAM_MAX_BYTES`, default 1 GiB (0: no limit): past it, each stream drops its oldest events. */
    streamMaxBytes: number;
    /** `[bus] EVENTS_MAX_AGE` in ms, default 30 days (0: no limit): the same for the public event streams. */
    eventsMaxAgeMs: number;
    /** `[bus] EVENTS_MAX_BYTES`, default 1 GiB (0: no limit): the same for the public event streams. */
    eventsMaxBytes: number;
    /** `[bus] STREAM_REPLICAS`, default 1 (1..5): copies of every stream Cairn creates in a clustered NATS. */
    streamReplicas: number;
  };
  log: {
    /** `[log] LEVEL`: trace|debug|info|warn|error|fatal|silent, default info. */
    level: string;
  };
  api: {
    enableSwagger: boolean; // ENABLE_SWAGGER true
    maxResponseItems: number; // MAX_RESPONSE_ITEMS 50
    defaultPagingNum: number; // DEFAULT_PAGING_NUM 30
    defaultGitTreesPerPage: number; // 1000
    defaultMaxBlobSize: number; // 10485760
    defaultMaxResponseSize: number; // 104857600
  };
  ui: {
    explorePagingNum: number; // 20
    issuePagingNum: number; // 20
    repoSearchPagingNum: number; // 20
    membersPagingNum: number; // 20
    feedPagingNum: number; // 20
    defaultTheme: string; // gitea-auto
    reactions: string[]; // +1, -1, laugh, hooray, confused, heart, rocket, eyes
    customEmojis: string[]; // git, gitea, codeberg, gitlab, github, gogs
    showUserEmail: boolean; // true
    /** Lines of the diff above a commented line a review comment keeps (its `diff_hunk`). */
    codeCommentLines: number; // CODE_COMMENT_LINES 4
  };
  /** `[ui.explore]`, also read from Gitea's `[service.explore]`. */
  explore: {
    requireSigninView: boolean;
    disableUsersPage: boolean;
  };
  service: {
    /** `[service] REQUIRE_SIGNIN_VIEW` (whole site); "expensive" reads as false for the API. */
    requireSigninView: boolean;
    enableBasicAuthentication: boolean; // true
    /** duration in milliseconds; 0 = off */
    userDeleteWithCommentsMaxTime: number;
    defaultUserIsRestricted: boolean; // false
    defaultUserVisibility: 'public' | 'limited' | 'private'; // public
    defaultOrgVisibility: 'public' | 'limited' | 'private'; // public
    defaultAllowCreateOrganization: boolean; // true
    /** Whether a new organization member's membership starts public. */
    defaultOrgMemberVisible: boolean; // false
    enableTimetracking: boolean; // true
    enableUserHeatmap: boolean; // true
    autoWatchNewRepos: boolean; // true
    /** `[service] NO_REPLY_ADDRESS`: domain of the placeholder e-mails shown for hidden ones; default `noreply.<[server] DOMAIN>`. */
    noReplyAddress: string;
  };
  security: {
    /** `[security] DISABLE_WEB_HOOKS`, also Gitea's `DISABLE_WEBHOOKS`. */
    disableWebhooks: boolean;
    disableQueryAuthToken: boolean; // false
    /** `[security] MIN_PASSWORD_LENGTH`, default 8 */
    minPasswordLength: number;
    /** `[security] LOGIN_MAX_FAILURES`, default 5: failed sign-ins in a row of one account from one address before that pair is blocked; 0 = no limit. */
    loginMaxFailures: number;
    /** `[security] LOGIN_MAX_ACCOUNT_FAILURES`, default 50: failures of one account from any address in a window before its password sign-in is blocked; 0 = no limit. */
    loginMaxAccountFailures: number;
    /** `[security] LOGIN_MAX_ADDRESS_FAILURES`, default 100: failures from one address (an IPv6 /64) for any accounts in a window before it is blocked; 0 = no limit. */
    loginMaxAddressFailures: number;
    /** `[security] LOGIN_FAILURE_WINDOW_SECONDS`, default 900: how long a failure is counted. */
    loginFailureWindowSeconds: number;
    /** `[security] LOGIN_BLOCK_SECONDS`, default 60: how long a limit, once reached, refuses password sign-ins (429). */
    loginBlockSeconds: number;
    /** `[security] LOGIN_KNOWN_ADDRESS_DAYS`, default 30: an address that signed in to an account is exempt from that account's own block this long; 0 = never. */
    loginKnownAddressDays: number;
    /** `[security] PASSWORD_CHECK_CONCURRENCY`, default 2: password hashes computed at once per accounts process. */
    passwordCheckConcurrency: number;
    /** `[security] PASSWORD_CHECK_QUEUE`, default 32: password checks that may wait for a turn; beyond, 503. */
    passwordCheckQueue: number;
    /** `[security] REVERSE_PROXY_TRUSTED_PROXIES`, default `127.0.0.0/8,::1/128`: peers whose `X-Forwarded-For` is believed (`*`: any). */
    reverseProxyTrustedProxies: string[];
  };
  repository: {
    disableMigrations: boolean;
    /** Unit keys (`repo.code`, …); default Gitea's builtin list minus the disabled units, never empty. */
    defaultRepoUnits: string[];
    /** Globally disabled unit keys; default [] (+ repo.packages / repo.actions when `[packages]` / `[actions] ENABLED = false`). */
    disabledRepoUnits: string[];
    defaultBranch: string; // main
    disableStars: boolean;
    forcePrivate: boolean;
    maxCreationLimit: number; // -1
    /**
     * `[repository] MAX_PUSH_SIZE` (Cairn's own), bytes: the largest pack one push may send (git's
     * `receive.maxInputSize`); 0 = no limit. Default 2 GiB.
     */
    maxPushSize: number;
    /** `[repository.issue]` (Gitea's Repository.Issue). */
    issue: {
      /** `MAX_PINNED`: pinned issues per repository, and as many pinned pull requests (default 3). */
      maxPinned: number;
    };
    /** `[repository.release]` (Gitea's Repository.Release). */
    release: {
      /** `ALLOWED_TYPES`: what release assets may be, as `[attachment] ALLOWED_TYPES` says it; "" (default) anything. */
      allowedTypes: string;
    };
    /** `[repository.signing]`: the instance's key for the commits Cairn writes (Gitea's Repository.Signing). */
    signing: SigningConfig;
    pullRequest: {
      /**
       * `[repository.pull-request] ADD_CO_COMMITTER_TRAILERS` (default true): a squash commit whose author (the pull
       * request's poster) is not its committer (the merger) ends with `Co-authored-by:` and `Co-committed-by:`.
       */
      addCoCommitterTrailers: boolean;
      /**
       * `CLOSE_KEYWORDS` / `REOPEN_KEYWORDS` (Gitea's lists by default): a merged pull request whose title or body
       * names an issue of its repository right after one of them ("Fixes #12") closes or reopens it.
       */
      closeKeywords: string[];
      reopenKeywords: string[];
    };
  };
  migrations: {
    /** Host patterns, lower-cased. */
    allowedDomains: string[];
    /** Host patterns, lower-cased. */
    blockedDomains: string[];
    allowLocalnetworks: boolean;
  };
  mirror: {
    enabled: boolean; // true
    /** `DISABLE_NEW_PULL` (Gitea's, false): no new pull mirrors (existing ones go on syncing). */
    disableNewPull: boolean;
    /** `DISABLE_NEW_PUSH` (Gitea's, false): no new push mirrors (existing ones go on syncing). */
    disableNewPush: boolean;
    /** milliseconds */
    minInterval: number; // 10m
    /** milliseconds */
    defaultInterval: number; // 8h
  };
  webhook: {
    /** Lower-cased host-match entries; "" in the file means the builtin ["external"]. */
    allowedHostList: string[];
    /** seconds */
    deliverTimeout: number; // 5
    /** Gitea's: https targets' certificates are not verified. */
    skipTlsVerify: boolean; // false
    /** Cairn's: attempts per delivery before it is marked failed (Gitea tries once). */
    deliveryAttempts: number; // 5
    /** Cairn's: milliseconds before the first retry; doubled after each failed attempt. */
    retryBackoff: number; // 10s
  };
  attachment: {
    enabled: boolean; // true
    allowedTypes: string; // ".avif,.cpuprofile,.csv,…" as Gitea
    maxSize: number; // MiB, 2048
    maxFiles: number; // 5
    /** `[attachment] STORAGE_TYPE`, `PATH`, `MINIO_*` over `[storage]`: local `<work dir>/attachments` by default. */
    storage: ObjectStoreSettings;
  };
  /** `[git]` and `[git.timeout]`: limits on the git processes git-storage runs (Gitea's modules/setting/git.go). */
  git: {
    /** Every duration in milliseconds; the settings are whole seconds, as Gitea's. */
    timeout: {
      /** `[git.timeout] DEFAULT` (360 s, Gitea's): wall-clock limit of every git process but the ones below. */
      default: number;
      /** `[git.timeout] GC` (60 s, Gitea's): wall-clock limit of `git gc` on one repository. */
      gc: number;
      /** `[git.timeout] TRANSFER` (Cairn's own, 3600 s): wall-clock limit of one upload-pack or receive-pack. */
      transfer: number;
      /**
       * `[git.timeout] IDLE` (Cairn's own, 120 s): a transfer or streamed read whose git process moves no byte on
       * stdin or stdout for this long is killed (git's own keep-alives arrive every 5 s while it works).
       */
      idle: number;
      /** `[git.timeout] MIGRATE` (600 s, Gitea's): one fetch of a repository being imported. */
      migrate: number;
      /** `[git.timeout] MIRROR` (300 s, Gitea's): one sync of a pull or push mirror. */
      mirror: number;
    };
    /** `[git] MAX_CONCURRENT_TRANSFERS` (Cairn's own, 32): upload-packs, receive-packs and archives running at once per git-storage node. */
    maxConcurrentTransfers: number;
    /** `[git] MAX_QUEUED_TRANSFERS` (Cairn's own, 64): how many more wait for a turn; beyond that, RESOURCE_EXHAUSTED. */
    maxQueuedTransfers: number;
    /** `[git] GC_ARGS` (Gitea's, default none): long options added to every `git gc`. */
    gcArgs: string[];
  };
  /** `[cron.*]`: Gitea's periodic tasks that Cairn runs. */
  cron: {
    /** `[cron.git_gc_repos]`: `git gc` over every repository of a git-storage node. */
    gitGcRepos: {
      enabled: boolean; // ENABLED true
      runAtStart: boolean; // RUN_AT_START false
      /** `SCHEDULE`, only as `@every <duration>` (default @every 72h), in milliseconds. */
      every: number;
      /** `TIMEOUT` (default 60m), in milliseconds: the whole sweep stops after it; 0 = no limit. */
      timeout: number;
      /** `ARGS` (default none): long options added after `[git] GC_ARGS`. */
      args: string[];
    };
  };
  /** gRPC endpoints, `[services.<name>] LISTEN / ADDR`. */
  services: Record<GrpcServiceName, ServiceEndpoint>;
  rpc: {
    /** `[rpc] DEADLINE_MS`: deadline on every client call, default 5000. */
    deadlineMs: number;
    /**
     * `[rpc] GIT_WRITE_DEADLINE_MS` (Cairn's own, default 60000): the deadline of the calls that write git history — merging,
     * updating or opening a pull request (a test merge) — which run merges and rebases, not lookups.
     */
    gitWriteDeadlineMs: number;
    /**
     * `[rpc] KEYS_DIR` (Cairn's own, default `<work dir>/rpc-keys`): the service identity keys, `<identity>.key` (private,
     * the identities this process runs) and `<identity>.pub` (public, every identity that calls it); see
     * docs/security.md. The supervisor creates missing ones there.
     */
    keysDir: string;
  };
  /** `[mailer]` (Gitea's modules/setting/mailer.go; see docs/mail.md). */
  mailer: {
    /** `ENABLED`, default false: nothing is queued or sent. */
    enabled: boolean;
    /** `PROTOCOL`; unset, inferred from SMTP_PORT as Gitea (25 smtp, 587 smtp+starttls, else smtps). */
    protocol: MailerProtocol;
    smtpAddr: string;
    /** `SMTP_PORT`; unset, the protocol's port (25, 465, 587); 0 for sendmail and dummy. */
    smtpPort: number;
    user: string;
    /** `PASSWD` (or `CAIRN__mailer__PASSWD__FILE`); not enumerable, so no dump of the configuration shows it. */
    passwd: string;
    /** `FROM` (default USER): the From header, `address` or `Name <address>`. */
    from: string;
    subjectPrefix: string;
    /** `SENDMAIL_PATH`, default `sendmail`. */
    sendmailPath: string;
    /** `FORCE_TRUST_SERVER_CERT`: the SMTP server's certificate is not verified. */
    forceTrustServerCert: boolean;
    /** Cairn's `MAIL_DIR` when set (absolute): every mail is also written there as an `.eml` file. */
    mailDir: string | undefined;
    /** Where `PROTOCOL = dummy` writes its `.eml` files: MAIL_DIR, default `<work dir>/mail`. */
    dummyDir: string;
    /** Cairn's `SEND_ATTEMPTS` (8): tries per mail before it is given up. */
    sendAttempts: number;
    /** Cairn's `RETRY_BACKOFF` (10s) in milliseconds: before the first retry, doubled after each failure. */
    retryBackoff: number;
  };
  /** `[admin]` */
  admin: {
    /** `DEFAULT_EMAIL_NOTIFICATIONS` (Gitea's, default `enabled`): a new user's e-mail notification preference. */
    defaultEmailNotifications: EmailNotificationsPreference;
  };
  /** `[metrics]`: the Prometheus endpoint (`GET /metrics`) every service process serves on its own port. */
  metrics: {
    /** `[metrics] ENABLED`, default false (as Gitea). */
    enabled: boolean;
    /** `[metrics] LISTEN`: host:port of the metrics server (Cairn's own key), default 127.0.0.1:9464. */
    listen: string;
    /** `[metrics] TOKEN`: when set, scrapes must send `Authorization: Bearer <TOKEN>` (as Gitea); default "". */
    token: string;
  };
}

/** `[mailer] PROTOCOL` values Gitea knows (smtp+unix is refused by Cairn at start-up). */
export const MAILER_PROTOCOLS = ['smtp', 'smtps', 'smtp+starttls', 'smtp+unix', 'sendmail', 'dummy'] as const;
export type MailerProtocol = (typeof MAILER_PROTOCOLS)[number];

/** Gitea's EmailNotificationsPreference (models/user/user.go). */
export const EMAIL_NOTIFICATIONS_PREFERENCES = ['enabled', 'onmention', 'disabled', 'andyourown'] as const;
export type EmailNotificationsPreference = (typeof EMAIL_NOTIFICATIONS_PREFERENCES)[number];
