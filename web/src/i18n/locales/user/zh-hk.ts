import type { Messages } from '../../types';
import type { userZhCN } from './zh-cn';

export const userZhHK: Messages<typeof userZhCN> = {};
