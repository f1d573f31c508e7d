/**
 * `[mailer]` (Gitea's modules/setting/mailer.go newMailService) and `[admin] DEFAULT_EMAIL_NOTIFICATIONS`: how mail
 * leaves Cairn. Read whether or not the mailer is enabled, so a mistake fails start-up before someone switches it on.
 */
import * as path from 'node:path';
import { ConfigError } from './errors';
import type { SettingsReader } from './settings-reader';
import type { CairnConfig, EmailNotificationsPreference, MailerProtocol } from './types';
import { EMAIL_NOTIFICATIONS_PREFERENCES, MAILER_PROTOCOLS } from './types';

/** Gitea's port for each protocol when SMTP_PORT is unset, and the protocol each well-known port implies. */
const PORT_OF: Partial<Record<MailerProtocol, number>> = { smtp: 25, smtps: 465, 'smtp+starttls': 587 };

/** `Name <address>` or a bare address (Go's net/mail.ParseAddress, in the forms app.ini files use). */
export function parseMailAddress(text: string): { name: string; address: string } | undefined {
  const trimmed = text.trim();
  const bare = /^[^\s@<>"]+@[^\s@<>"]+$/;
  if (bare.test(trimmed)) return { name: '', address: trimmed };
  const named = /^(?:"([^"]*)"|([^<>"]*?))\s*<([^\s@<>"]+@[^\s@<>"]+)>$/.exec(trimmed);
  if (named === null) return undefined;
  return { name: (named[1] ?? named[2] ?? '').trim(), address: named[3] };
}

export function readMailer(reader: SettingsReader, workDir: string, warnings: string[]): CairnConfig['mailer'] {
  const enabled = reader.boolean('mailer', 'ENABLED', false);
  const smtpAddr = reader.string('mailer', 'SMTP_ADDR', '');
  const explicitProtocol = reader.raw('mailer', 'PROTOCOL') === undefined ? undefined : reader.choice('mailer', 'PROTOCOL', 'smtp', MAILER_PROTOCOLS);
  if (explicitProtocol === 'smtp+unix') {
    // Gitea's smtp+unix dials a Unix socket; Cairn's outbound guard only connects to TCP addresses it can check.
    throw new ConfigError('mailer.PROTOCOL', '[mailer] PROTOCOL = smtp+unix is not supported by Cairn: use smtp with SMTP_ADDR and SMTP_PORT, or sendmail');
  }
  const port = reader.integer('mailer', 'SMTP_PORT', (explicitProtocol && PORT_OF[explicitProtocol]) ?? 0, { min: 0, max: 65535 });
  // Gitea infers the protocol from the port (25 smtp, 465 smtps, 587 smtp+starttls, anything else smtps).
  const inferred: MailerProtocol = port === 25 ? 'smtp' : port === 587 ? 'smtp+starttls' : 'smtps';
  const protocol = explicitProtocol ?? inferred;
  const smtpPort = port !== 0 ? port : (PORT_OF[protocol] ?? 0);
  const user = reader.string('mailer', 'USER', '');
  // Gitea's FROM defaults to USER, then must parse as an address.
  const from = reader.string('mailer', 'FROM', user);
  if (from !== '' && parseMailAddress(from) === undefined) {
    throw new ConfigError('mailer.FROM', `invalid value ${JSON.stringify(from)} for [mailer] FROM: expected an e-mail address, optionally as "Name <address>"`);
  }
  // Gitea logs this and starts anyway.
  if (enabled && from === '') warnings.push('no [mailer] FROM (or USER) provided: mail is sent without a From address and may be refused');
  const isSmtp = protocol === 'smtp' || protocol === 'smtps' || protocol === 'smtp+starttls';
  if (enabled && isSmtp && smtpAddr === '') {
    throw new ConfigError('mailer.SMTP_ADDR', `[mailer] SMTP_ADDR is required with PROTOCOL = ${protocol}: the SMTP server's host name or address`);
  }
  if (enabled && isSmtp && smtpPort === 0) {
    throw new ConfigError('mailer.SMTP_PORT', `[mailer] SMTP_PORT must be from 1 to 65535 with PROTOCOL = ${protocol}`);
  }
  const mailDirSetting = reader.string('mailer', 'MAIL_DIR', '');
  const settings: CairnConfig['mailer'] = {
    enabled,
    protocol,
    smtpAddr,
    smtpPort,
    user,
    passwd: '',
    from,
    subjectPrefix: reader.string('mailer', 'SUBJECT_PREFIX', ''),
    sendmailPath: reader.string('mailer', 'SENDMAIL_PATH', 'sendmail'),
    forceTrustServerCert: reader.boolean('mailer', 'FORCE_TRUST_SERVER_CERT', false),
    mailDir: mailDirSetting === '' ? undefined : path.resolve(workDir, mailDirSetting),
    dummyDir: path.resolve(workDir, mailDirSetting === '' ? 'mail' : mailDirSetting),
    sendAttempts: reader.integer('mailer', 'SEND_ATTEMPTS', 8, { min: 1 }),
    retryBackoff: reader.duration('mailer', 'RETRY_BACKOFF', 10_000),
  };
  // Not enumerable (as storage.ts's secret key), so no dump of the configuration shows the password.
  Object.defineProperty(settings, 'passwd', { value: reader.string('mailer', 'PASSWD', ''), enumerable: false, writable: false });
  return settings;
}

export function readDefaultEmailNotifications(reader: SettingsReader): EmailNotificationsPreference {
  return reader.choice('admin', 'DEFAULT_EMAIL_NOTIFICATIONS', 'enabled', EMAIL_NOTIFICATIONS_PREFERENCES);
}
