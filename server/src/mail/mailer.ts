import type { OptionStore } from '../options/option-store.js';

export interface MailMessage {
  to: string;
  subject: string;
  html: string;
}

export interface Mailer {
  /** True when SMTP is configured enough to try sending. */
  configured(): boolean;
  send(message: MailMessage): Promise<void>;
}

/** Sends through the SMTP server in the options; settings changed in the console apply to the next mail. */
export class SmtpMailer implements Mailer {
  constructor(private readonly options: OptionStore) {}

  configured(): boolean {
    const o = this.options.current;
    return o.SMTPServer !== '' && o.SMTPAccount !== '';
  }

  async send(message: MailMessage): Promise<void> {
    const o = this.options.current;
    const port = Number(o.SMTPPort);
    // Loaded with the first mail: most processes never send one.
    const { default: nodemailer } = await import('nodemailer');
    const transport = nodemailer.createTransport({
      host: o.SMTPServer,
      port,
      secure: port === 465,
      auth: o.SMTPToken ? { user: o.SMTPAccount, pass: o.SMTPToken } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    try {
      await transport.sendMail({
        from: o.SMTPFrom || o.SMTPAccount,
        to: message.to,
        subject: message.subject,
        html: message.html,
      });
    } finally {
      transport.close();
    }
  }
}
