// Stable error codes of the management API. The console keys its messages on these, never on text.
export const ErrorCode = {
  invalidJson: 'invalid_json',
  invalidRequest: 'invalid_request',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  notLoggedIn: 'not_logged_in',
  invalidAccessToken: 'invalid_access_token',
  forbidden: 'forbidden',
  userDisabled: 'user_disabled',
  notFound: 'not_found',
  conflict: 'conflict',
  usernameTaken: 'username_taken',
  emailTaken: 'email_taken',
  invalidCredentials: 'invalid_credentials',
  registrationDisabled: 'registration_disabled',
  passwordLoginDisabled: 'password_login_disabled',
  verificationRequired: 'verification_required',
  invalidVerificationCode: 'invalid_verification_code',
  invalidResetLink: 'invalid_reset_link',
  emailDomainNotAllowed: 'email_domain_not_allowed',
  mailNotConfigured: 'mail_not_configured',
  turnstileFailed: 'turnstile_failed',
  rateLimited: 'rate_limited',
  optionInvalid: 'option_invalid',
  optionPrecondition: 'option_precondition',
  insufficientQuota: 'insufficient_quota',
  /** The token's group is private to other users. */
  groupNotAllowed: 'group_not_allowed',
  /** Enabling a token whose expiry time has passed. */
  tokenExpired: 'token_expired',
  /** Enabling a limited token with no quota left. */
  tokenExhausted: 'token_exhausted',
  priceExists: 'price_exists',
  /** A redemption code that does not exist. */
  redemptionInvalid: 'redemption_invalid',
  /** A redemption code already redeemed (by anyone). */
  redemptionUsed: 'redemption_used',
  /** A redemption code an administrator switched off. */
  redemptionDisabled: 'redemption_disabled',
  /** An upstream provider answered with an error or could not be reached (channel tools). */
  upstreamError: 'upstream_error',
  /** The SMTP server refused or failed a mail we had to send now. */
  mailFailed: 'mail_failed',
  /** A sign-in provider that the administrator has not turned on. */
  oauthDisabled: 'oauth_disabled',
  /** An OAuth state that is unknown, expired, already used or from another browser. */
  oauthStateInvalid: 'oauth_state_invalid',
  /** The provider refused the code or answered something that could not be trusted. */
  oauthFailed: 'oauth_failed',
  /** The provider account is already bound to another user. */
  oauthAlreadyBound: 'oauth_already_bound',
  /** Unbinding would leave the account with no way to sign in. */
  lastSignInMethod: 'last_sign_in_method',
  /** A passkey registration or sign-in that failed its checks (challenge, origin, signature). */
  passkeyRefused: 'passkey_refused',
  /** A service the request needs (the session store) is away for now; try again shortly. */
  unavailable: 'service_unavailable',
  internal: 'internal_error',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The management API envelope: every /api answer has this shape. */
export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
  code?: ErrorCode | string;
}

export interface Page<T> {
  data: T[];
  page: number;
  size: number;
  total_count: number;
}
