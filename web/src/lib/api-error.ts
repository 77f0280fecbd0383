import { ErrorCode } from '@switchyard/domain';
import type { TFunction } from 'i18next';
import { i18n } from '../i18n';
import { toast } from './toast';

// What a failed call to the API means for the reader: the error the client throws and the toast of
// the global response handler. Screens import these; only api modules import the client.

/** status 0 = the server could not be reached. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ErrorToast {
  variant: 'error' | 'info';
  text: string;
}

// Error codes whose meaning the console can say in the user's language (the server's texts are English).
const TRANSLATED_CODES = [
  ErrorCode.notLoggedIn,
  ErrorCode.forbidden,
  ErrorCode.userDisabled,
  ErrorCode.invalidCredentials,
  ErrorCode.usernameTaken,
  ErrorCode.emailTaken,
  ErrorCode.registrationDisabled,
  ErrorCode.passwordLoginDisabled,
  ErrorCode.verificationRequired,
  ErrorCode.invalidVerificationCode,
  ErrorCode.invalidResetLink,
  ErrorCode.emailDomainNotAllowed,
  ErrorCode.mailNotConfigured,
  ErrorCode.turnstileFailed,
  ErrorCode.redemptionInvalid,
  ErrorCode.redemptionUsed,
  ErrorCode.redemptionDisabled,
  ErrorCode.insufficientQuota,
  ErrorCode.groupNotAllowed,
  ErrorCode.tokenExpired,
  ErrorCode.tokenExhausted,
  ErrorCode.priceExists,
  ErrorCode.upstreamError,
  ErrorCode.mailFailed,
  ErrorCode.payloadTooLarge,
] as const;
type TranslatedCode = (typeof TRANSLATED_CODES)[number];

function isTranslatedCode(code: string | undefined): code is TranslatedCode {
  return (TRANSLATED_CODES as readonly (string | undefined)[]).includes(code);
}

/** The toast a failed call produces ("错误：" + the server's message, by its code when known). */
export function describeError(error: unknown, t: TFunction): ErrorToast {
  if (error instanceof ApiError) {
    if (error.status === 429) return { variant: 'error', text: t('errors.tooManyRequests') };
    if (error.status === 500) return { variant: 'error', text: t('errors.serverError') };
    if (error.status === 405) return { variant: 'info', text: t('errors.demoSite') };
    if (error.status === 0) return { variant: 'error', text: t('errors.unreachable') };
    if (isTranslatedCode(error.code)) {
      return {
        variant: 'error',
        text: t('errors.withMessage', { message: t(`serverErrors.${error.code}`) }),
      };
    }
  }
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return { variant: 'error', text: t('errors.withMessage', { message: message || t('errors.unknown') }) };
}

export function showErrorToast(error: unknown): void {
  const { variant, text } = describeError(error, i18n.t);
  toast[variant](text);
}
