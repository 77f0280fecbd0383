// What the bot says, in English and Simplified Chinese (chosen by the Telegram client's language).
// Plain text unless a reply says otherwise; `{x}` marks are filled by `say`.

const en = {
  help:
    'Commands:\n/bind - link your account (with the access token from your profile page)\n/unbind - unlink it\n' +
    '/balance - your balance\n/recharge - redeem a code\n/apikey - your API keys and chat apps\n/aff - your invite link',
  privateOnly: 'Please send this command in a private chat with me.',
  unknown: 'I do not know {command}. Send /help to see what I can do.',
  notBound: 'This Telegram account is not linked to an account yet. Send /bind first.',
  disabled: 'Your account is disabled.',
  bindAsk:
    'Send me the access token from your profile page (Profile → Generate access token), as the next message or as /bind <token>.',
  bindAlready:
    'This Telegram account is already linked to {username}. Send /unbind first to link another one.',
  bindInvalid: 'This access token is not valid. Generate a new one on your profile page and try again.',
  bindTaken: 'That account is already linked to another Telegram account; unlink it there first.',
  bindDone: 'Linked to {username}. Delete the message with your access token from this chat.',
  unbindDone: 'Unlinked from {username}.',
  balance: 'Balance: {balance}\nUsed: {used}',
  rechargeAsk: 'Send me the redemption code, as the next message or as /recharge <code>.',
  rechargeDone: 'Redeemed {amount}. Balance: {balance}',
  rechargeInvalid: 'This redemption code is not valid.',
  rechargeUsed: 'This redemption code has already been used.',
  rechargeDisabled: 'This redemption code is disabled.',
  noKeys: 'You have no API keys yet. Create one on the Tokens page.',
  keysMore: '…and {n} more on the Tokens page.',
  unlimited: 'unlimited',
  remaining: 'remaining',
  aff: 'Your invite link: {link}',
  failed: 'Something went wrong on our side. Please try again later.',
};

type Texts = typeof en;

const zh: Texts = {
  help:
    '命令：\n/bind - 绑定账号（使用个人设置页的访问令牌）\n/unbind - 解除绑定\n/balance - 查询余额\n' +
    '/recharge - 兑换充值码\n/apikey - 查看令牌和聊天应用\n/aff - 邀请链接',
  privateOnly: '请在与我的私聊中发送这个命令。',
  unknown: '我不认识 {command}。发送 /help 查看可用命令。',
  notBound: '这个 Telegram 账号还没有绑定账号，请先发送 /bind。',
  disabled: '你的账号已被禁用。',
  bindAsk: '请发送个人设置页的访问令牌（个人设置 → 生成访问令牌），可以作为下一条消息，或 /bind <令牌>。',
  bindAlready: '这个 Telegram 账号已绑定 {username}。请先发送 /unbind 再绑定其他账号。',
  bindInvalid: '访问令牌无效，请在个人设置页重新生成后再试。',
  bindTaken: '该账号已绑定另一个 Telegram 账号，请先在那里解除绑定。',
  bindDone: '已绑定 {username}。请删除本聊天中含有访问令牌的消息。',
  unbindDone: '已解除与 {username} 的绑定。',
  balance: '余额：{balance}\n已用：{used}',
  rechargeAsk: '请发送兑换码，可以作为下一条消息，或 /recharge <兑换码>。',
  rechargeDone: '兑换成功：{amount}。余额：{balance}',
  rechargeInvalid: '兑换码无效。',
  rechargeUsed: '兑换码已被使用。',
  rechargeDisabled: '兑换码已被禁用。',
  noKeys: '你还没有令牌，请在令牌页面创建。',
  keysMore: '……还有 {n} 个，请在令牌页面查看。',
  unlimited: '无限',
  remaining: '剩余',
  aff: '你的邀请链接：{link}',
  failed: '服务出了点问题，请稍后再试。',
};

export type TextKey = keyof Texts;

export function textsFor(languageCode: string | undefined): Texts {
  return languageCode?.toLowerCase().startsWith('zh') ? zh : en;
}

export function say(texts: Texts, key: TextKey, values: Record<string, string | number> = {}): string {
  return texts[key].replace(/\{(\w+)\}/g, (m, name: string) => (name in values ? String(values[name]) : m));
}

/** Text placed inside an HTML-mode reply. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
