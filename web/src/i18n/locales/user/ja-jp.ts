import type { Messages } from '../../types';
import type { userZhCN } from './zh-cn';

export const userJaJP: Messages<typeof userZhCN> = {};
