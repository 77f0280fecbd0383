import { z } from 'zod';

// Messaging-bot menu entries: command, description, message content and parse mode are required. The bot itself comes later; these rows are what it will answer with.

/** Commands the bot answers itself; a menu entry may not take their names. */
export const TELEGRAM_BUILTIN_COMMANDS = ['bind', 'unbind', 'balance', 'recharge', 'apikey', 'aff'] as const;
export const TELEGRAM_PARSE_MODES = ['MarkdownV2', 'Markdown', 'HTML'] as const;
export type TelegramParseMode = (typeof TELEGRAM_PARSE_MODES)[number];
export const TELEGRAM_COMMAND_MAX = 32;
export const TELEGRAM_DESCRIPTION_MAX = 255;
/** Telegram's limit for one message's text. */
export const TELEGRAM_REPLY_MAX = 4096;

export const telegramMenuInput = z.strictObject({
  /** 0 creates an entry; another id changes that entry. */
  id: z.number({ error: 'id must be a number' }).int().min(0).default(0),
  command: z
    .string({ error: 'Command is required' })
    .trim()
    .transform((v) => v.replace(/^\//, ''))
    .pipe(
      z
        .string()
        .min(1, 'Command is required')
        .max(TELEGRAM_COMMAND_MAX, `Command must be at most ${TELEGRAM_COMMAND_MAX} characters`)
        // Telegram accepts only these characters in a bot command.
        .regex(/^[a-z0-9_]+$/, 'Command may contain only lowercase English letters, digits and "_"')
        .refine(
          (v) => !(TELEGRAM_BUILTIN_COMMANDS as readonly string[]).includes(v),
          'This command is built into the bot and cannot be redefined',
        ),
    ),
  description: z
    .string({ error: 'Description is required' })
    .trim()
    .min(1, 'Description is required')
    .max(TELEGRAM_DESCRIPTION_MAX, `Description must be at most ${TELEGRAM_DESCRIPTION_MAX} characters`),
  parse_mode: z.enum(TELEGRAM_PARSE_MODES, { error: 'Parse mode must be MarkdownV2, Markdown or HTML' }),
  reply_message: z
    .string({ error: 'Message content is required' })
    .trim()
    .min(1, 'Message content is required')
    .max(TELEGRAM_REPLY_MAX, `Message content must be at most ${TELEGRAM_REPLY_MAX} characters`),
});
export type TelegramMenuInput = z.infer<typeof telegramMenuInput>;

export interface TelegramMenuView {
  id: number;
  command: string;
  description: string;
  parse_mode: string;
  reply_message: string;
}
