import { ErrorCode, isOptionKey, optionDefs } from '@switchyard/domain';
import { z } from 'zod';
import { ApiError } from '../../http/api-error.js';
import { type RouteContext, WithMessage } from '../../http/route.js';
import { audit } from '../audit.js';
import { invalidField } from '../validation.js';

// Settings actions beyond saving values (root): a test mail through the SMTP settings as saved, and
// clearing a secret option (GET never shows secrets, so "clear" is its own action).

export const smtpTestBody = z
  .object({
    to: z.preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
      z.email('Enter a valid email address').max(254, 'Enter a valid email address').optional(),
    ),
  })
  .optional();
export type SmtpTestBody = z.infer<typeof smtpTestBody>;

/** POST /api/option/smtp/test: mails the caller (or `to`) with the current SMTP options. */
export async function sendTestMail({ s, caller, ip, body }: RouteContext<SmtpTestBody, unknown, unknown>) {
  const to = body?.to ?? caller!.user.email;
  if (!to)
    throw invalidField('to', 'Your account has no email address; enter an address to send the test mail to');
  if (!s.mailer.configured())
    throw new ApiError(400, ErrorCode.mailNotConfigured, 'Set the SMTP server and account first');
  const o = s.options.current;
  try {
    await s.mailer.send({
      to,
      subject: `${o.SystemName}: SMTP test`,
      html: `<p>This is a test mail from ${escapeHtml(o.SystemName)}. The SMTP settings work.</p>`,
    });
  } catch (err) {
    throw new ApiError(502, ErrorCode.mailFailed, `Sending the test mail failed: ${(err as Error).message}`);
  }
  await audit(s, caller, ip, 'option.smtp_test', { type: 'option', id: 'SMTPServer' }, { to });
  return new WithMessage({ to }, `A test mail was sent to ${to}`);
}

export const optionKeyParams = z.object({ key: z.string().min(1).max(100) });

/**
 * DELETE /api/option/:key: clears a secret (sets it to empty). Refused (409) while an enabled
 * sign-in method needs it: OptionStore.update checks that.
 */
export async function clearSecretOption({
  s,
  caller,
  ip,
  params,
}: RouteContext<unknown, unknown, z.infer<typeof optionKeyParams>>) {
  const { key } = params;
  if (!isOptionKey(key)) throw ApiError.notFound(`No option named ${key}`);
  if (!optionDefs[key].secret)
    throw invalidField('key', `${key} is not a secret; change it with PUT /api/option`, 'path');
  await s.options.update({ [key]: '' });
  await audit(s, caller, ip, 'option.clear', { type: 'option', id: key });
  return s.options.list().find((o) => o.key === key);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
