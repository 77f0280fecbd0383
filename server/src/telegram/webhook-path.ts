/** The path Telegram posts updates to in webhook mode (ServerAddress + this). */
export const TELEGRAM_WEBHOOK_PATH = '/api/telegram/webhook';
