import { describe, expect, it } from 'vitest';
import { telegramMenuInput } from './telegram-menu';

const valid = { command: 'help', description: 'Help', parse_mode: 'HTML', reply_message: '<b>hi</b>' };

describe('telegram menu input', () => {
  it('accepts an entry, defaulting id to 0 and dropping a leading slash', () => {
    expect(telegramMenuInput.parse({ ...valid, command: ' /help ' })).toEqual({ ...valid, id: 0 });
  });

  it('requires command, description, content and parse mode', () => {
    for (const field of ['command', 'description', 'reply_message', 'parse_mode']) {
      expect(telegramMenuInput.safeParse({ ...valid, [field]: '' }).success).toBe(false);
    }
    expect(telegramMenuInput.safeParse({ ...valid, parse_mode: 'Plain' }).success).toBe(false);
  });

  it('refuses the built-in commands and characters Telegram does not accept', () => {
    const builtIn = telegramMenuInput.safeParse({ ...valid, command: '/balance' });
    expect(builtIn.error?.issues[0]?.message).toBe(
      'This command is built into the bot and cannot be redefined',
    );
    expect(telegramMenuInput.safeParse({ ...valid, command: 'Help' }).success).toBe(false);
    expect(telegramMenuInput.safeParse({ ...valid, command: 'a'.repeat(33) }).success).toBe(false);
  });
});
