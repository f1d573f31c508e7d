/**
 * How a mail leaves Cairn, per `[mailer] PROTOCOL` (Gitea's services/mailer/sender): SMTP (`smtp` plain, `smtps` TLS
 * from the start, `smtp+starttls` STARTTLS required) through nodemailer over a socket the outbound guard connected;
 * `sendmail` through the local sendmail program; `dummy` (Cairn: instead of Gitea's log line) as one `.eml` file per
 * mail under `[mailer] MAIL_DIR` (default `<work dir>/mail`), written atomically. With MAIL_DIR set, every protocol
 * also leaves such a copy.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CairnConfig } from '@cairn/config';
import { type OutboundPolicy, type Resolver, outboundConnect, parseHostMatchList } from '@cairn/outbound';
import { createTransport } from 'nodemailer';

export interface OutgoingMail {
  /** `<…@…>`: the same for every attempt of one job, so a resend is recognisable. */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Further headers (References for issue threads). */
  headers?: Record<string, string>;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export type MailerSettings = CairnConfig['mailer'];

/**
 * The mailer's host is the operator's own choice in app.ini, not a user's: Gitea dials it without a host-match list,
 * and so does Cairn (`*`), still through the one guard so that the connection is made (and could be refused) in one
 * place.
 */
export const SMTP_POLICY: OutboundPolicy = { usage: 'mailer', allow: parseHostMatchList('mailer.SMTP_ADDR', ['*']) };

const CONNECT_TIMEOUT_MS = 30_000;

interface Composed {
  message: Buffer;
}

/** The mail as RFC 5322 bytes (nodemailer's stream transport), for `.eml` files. */
async function compose(mail: OutgoingMail): Promise<Buffer> {
  const composer = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const info = (await composer.sendMail(toNodemailer(mail))) as unknown as Composed;
  return info.message;
}

function toNodemailer(mail: OutgoingMail) {
  return { messageId: mail.messageId, from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers };
}

/** One file per mail, named after its Message-ID (a resend overwrites it), written to a temporary name then renamed. */
export async function writeEml(dir: string, mail: OutgoingMail): Promise<string> {
  await mkdir(dir, { recursive: true });
  const name = `${createHash('sha256').update(mail.messageId).digest('hex').slice(0, 32)}.eml`;
  const file = path.join(dir, name);
  const temporary = path.join(dir, `.${name}.${process.pid}.tmp`);
  await writeFile(temporary, await compose(mail));
  await rename(temporary, file);
  return file;
}

export function createMailTransport(settings: MailerSettings, options: { resolver?: Resolver } = {}): MailTransport {
  const copyTo = settings.protocol === 'dummy' ? undefined : settings.mailDir;
  const withCopy = (send: (mail: OutgoingMail) => Promise<void>): MailTransport['send'] => async (mail) => {
    await send(mail);
    if (copyTo !== undefined) await writeEml(copyTo, mail);
  };

  switch (settings.protocol) {
    case 'dummy':
      return { send: async (mail) => void (await writeEml(settings.dummyDir, mail)), close() {} };
    case 'sendmail': {
      const transport = createTransport({ sendmail: true, path: settings.sendmailPath, newline: 'unix' });
      return { send: withCopy(async (mail) => void (await transport.sendMail(toNodemailer(mail)))), close: () => transport.close() };
    }
    case 'smtp':
    case 'smtps':
    case 'smtp+starttls':
    case 'smtp+unix': {
      const host = settings.smtpAddr;
      const port = settings.smtpPort;
      const transport = createTransport({
        host,
        port,
        secure: settings.protocol === 'smtps',
        // Gitea: smtp+starttls insists on STARTTLS, plain smtp never upgrades.
        requireTLS: settings.protocol === 'smtp+starttls',
        ignoreTLS: settings.protocol === 'smtp',
        auth: settings.user !== '' && settings.passwd !== '' ? { user: settings.user, pass: settings.passwd } : undefined,
        tls: { rejectUnauthorized: !settings.forceTrustServerCert, servername: host },
        connectionTimeout: CONNECT_TIMEOUT_MS,
        greetingTimeout: CONNECT_TIMEOUT_MS,
        socketTimeout: 60_000,
        // Every connection through the outbound guard: nodemailer speaks SMTP (and TLS) over the socket it is given.
        getSocket(_options, callback) {
          outboundConnect(SMTP_POLICY, { host, port, timeoutMs: CONNECT_TIMEOUT_MS, resolver: options.resolver }).then(
            (socket) => callback(null, { connection: socket }),
            (error: Error) => callback(error, undefined),
          );
        },
      });
      return { send: withCopy(async (mail) => void (await transport.sendMail(toNodemailer(mail)))), close: () => transport.close() };
    }
  }
}
