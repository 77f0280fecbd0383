import type { Messages } from '../../types';
import type { adminZhCN } from './zh-cn';

export const adminJaJP: Messages<typeof adminZhCN> = {};
