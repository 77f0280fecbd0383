// Numeric values are one-hub's, so existing scripts and clients keep working
// (docs/compatibility.md, "Kept from one-hub").

export const Role = { Guest: 0, Common: 1, Admin: 10, Root: 100 } as const;
export type Role = (typeof Role)[keyof typeof Role];

export const UserStatus = { Enabled: 1, Disabled: 2 } as const;
export type UserStatus = (typeof UserStatus)[keyof typeof UserStatus];

export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;
export type TokenStatus = (typeof TokenStatus)[keyof typeof TokenStatus];

export const RedemptionStatus = { Enabled: 1, Disabled: 2, Used: 3 } as const;
export type RedemptionStatus = (typeof RedemptionStatus)[keyof typeof RedemptionStatus];

export const ChannelStatus = { Unknown: 0, Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;
export type ChannelStatus = (typeof ChannelStatus)[keyof typeof ChannelStatus];

export const LogType = { All: 0, Topup: 1, Consume: 2, Manage: 3, System: 4 } as const;
export type LogType = (typeof LogType)[keyof typeof LogType];

export const OrderStatus = {
  Pending: 'pending',
  Success: 'success',
  Failed: 'failed',
  Closed: 'closed',
} as const;
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

export const TaskStatus = {
  NotStart: 'NOT_START',
  Submitted: 'SUBMITTED',
  Queued: 'QUEUED',
  InProgress: 'IN_PROGRESS',
  Failure: 'FAILURE',
  Success: 'SUCCESS',
  Unknown: 'UNKNOWN',
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

export const PriceType = { Tokens: 'tokens', Times: 'times' } as const;
export type PriceType = (typeof PriceType)[keyof typeof PriceType];

/** Channel `pre_cost`: how much of the prompt is counted before sending. */
export const PreCost = { All: 1, NoImages: 2, None: 3 } as const;
export type PreCost = (typeof PreCost)[keyof typeof PreCost];

export const PaymentRequestType = { Redirect: 1, QrCode: 2 } as const;
export const Currency = { USD: 'USD', CNY: 'CNY' } as const;
export type Currency = (typeof Currency)[keyof typeof Currency];

/** The least role a management route needs; see server/src/api/routes.ts. */
export type Access = 'guest' | 'user' | 'admin' | 'root';
export const accessRole: Record<Access, number> = {
  guest: Role.Guest,
  user: Role.Common,
  admin: Role.Admin,
  root: Role.Root,
};

export function isAdminRole(role: number): boolean {
  return role >= Role.Admin;
}

export const PRODUCT_VERSION = '0.14.9';
