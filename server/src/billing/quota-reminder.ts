import type { Database } from '../db/create-db.js';
import { insertIgnore } from '../db/dialect.js';
import { leasedToUser, userSeen } from '../db/queries/quota-leases.js';
import type { Mailer } from '../mail/mailer.js';

// QuotaRemindThreshold: one mail when a user's settled balance goes below the threshold, not one per
// call. Settled users are gathered and read together once a second; a row in `quota_reminders`
// claims the crossing (the node whose insert lands sends), and seeing the balance back at or above
// the threshold deletes the row so the next crossing mails again.

export interface QuotaReminderOptions {
  QuotaRemindThreshold: number;
  SystemName: string;
  ServerAddress: string;
  TopUpLink: string;
}

const CHECK_EVERY_MS = 1000;
/** Users read per query. */
const BATCH = 500;

export class QuotaReminder {
  private readonly waiting = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: Database,
    private readonly mailer: Mailer,
    private readonly options: () => QuotaReminderOptions,
    private readonly nowSeconds: () => number,
    private readonly warn: (message: string, err: unknown) => void,
  ) {}

  /** A settlement changed `userId`'s balance: it is looked at with the next batch. */
  settled(userId: number): void {
    if (this.options().QuotaRemindThreshold <= 0) return;
    this.waiting.add(userId);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.running = this.running
        .then(() => this.check())
        .catch((err) => this.warn('quota reminder failed', err));
    }, CHECK_EVERY_MS);
    this.timer.unref();
  }

  /** Checks every user waiting now (tests and shutdown). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.running = this.running.then(() => this.check());
    }
    await this.running;
  }

  private async check(): Promise<void> {
    const ids = [...this.waiting];
    this.waiting.clear();
    const o = this.options();
    if (o.QuotaRemindThreshold <= 0) return;
    const { db, dialect } = this.database;
    for (let i = 0; i < ids.length; i += BATCH) {
      const users = (
        await db
          .selectFrom('users')
          .select(['id', 'quota', 'email', 'username'])
          .select(leasedToUser)
          .where('id', 'in', ids.slice(i, i + BATCH))
          .execute()
      ).map(userSeen);
      const above = users.filter((u) => Number(u.quota) >= o.QuotaRemindThreshold).map((u) => u.id);
      if (above.length > 0) await db.deleteFrom('quota_reminders').where('user_id', 'in', above).execute();
      for (const u of users) {
        if (Number(u.quota) >= o.QuotaRemindThreshold || u.email === '') continue;
        const claimed = await insertIgnore(
          dialect,
          db.insertInto('quota_reminders').values({ user_id: u.id, sent_at: this.nowSeconds() }),
        ).executeTakeFirst();
        if (Number(claimed.numInsertedOrUpdatedRows ?? 0) === 0) continue;
        await this.mail(u.email, u.username, Number(u.quota), o).catch(async (err: unknown) => {
          // Not sent: the claim goes, so the next settlement tries again.
          await db.deleteFrom('quota_reminders').where('user_id', '=', u.id).execute();
          throw err;
        });
      }
    }
  }

  private async mail(to: string, username: string, quota: number, o: QuotaReminderOptions): Promise<void> {
    if (!this.mailer.configured()) throw new Error('mail is not configured');
    const topUp = o.TopUpLink || `${o.ServerAddress.replace(/\/$/, '')}/panel/topup`;
    await this.mailer.send({
      to,
      subject: `${o.SystemName}: your balance is running low`,
      html:
        `<p>Hello ${escapeHtml(username)},</p><p>Your balance is now ${quota}, below the reminder level of ` +
        `${o.QuotaRemindThreshold}. Calls stop when it runs out.</p><p><a href="${escapeHtml(topUp)}">Top up</a></p>`,
    });
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
