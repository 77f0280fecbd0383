import type { Messages } from '../../types';
import type { userZhCN } from './zh-cn';

export const userEnUS: Messages<typeof userZhCN> = {};
