import type { AuditLogsQueries } from './queries/audit-logs.js';
import type { ChannelsQueries } from './queries/channels.js';
import type { LogsQueries } from './queries/logs.js';
import type { MidjourneysQueries } from './queries/midjourneys.js';
import type { ModelOwnersQueries } from './queries/model-owners.js';
import type { OptionsQueries } from './queries/options.js';
import type { OrdersQueries } from './queries/orders.js';
import type { PasskeysQueries } from './queries/passkeys.js';
import type { PaymentsQueries } from './queries/payments.js';
import type { PricesQueries } from './queries/prices.js';
import type { RedemptionsQueries } from './queries/redemptions.js';
import type { SessionsQueries } from './queries/sessions.js';
import type { StatisticsQueries } from './queries/statistics.js';
import type { TasksQueries } from './queries/tasks.js';
import type { TelegramMenusQueries } from './queries/telegram-menus.js';
import type { TokensQueries } from './queries/tokens.js';
import type { UserGroupsQueries } from './queries/user-groups.js';
import type { UsersQueries } from './queries/users.js';

/** The query modules, one per table, as the services object carries them (`services.repos`). */
export interface Repos {
  users: UsersQueries;
  sessions: SessionsQueries;
  options: OptionsQueries;
  auditLogs: AuditLogsQueries;
  userGroups: UserGroupsQueries;
  modelOwners: ModelOwnersQueries;
  prices: PricesQueries;
  tokens: TokensQueries;
  channels: ChannelsQueries;
  logs: LogsQueries;
  redemptions: RedemptionsQueries;
  statistics: StatisticsQueries;
  midjourneys: MidjourneysQueries;
  tasks: TasksQueries;
  telegramMenus: TelegramMenusQueries;
  passkeys: PasskeysQueries;
  payments: PaymentsQueries;
  orders: OrdersQueries;
}
