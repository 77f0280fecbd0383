import type { zhCN } from './locales/zh-cn';

/** The shape every locale must have: the source locale's keys, each leaf a string. */
export type Messages<T = typeof zhCN> = { [K in keyof T]: T[K] extends string ? string : Messages<T[K]> };
