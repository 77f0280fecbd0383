import { loginInput, registerForm } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';
import { i18n } from '../i18n';
import { schemaResolver } from './form-resolver';

const options = { fields: {}, shouldUseNativeValidation: false } as const;

async function messagesOf(schema: Parameters<typeof schemaResolver>[0], values: Record<string, unknown>) {
  const result = await schemaResolver(schema)(values, undefined, options);
  return Object.fromEntries(
    Object.entries(result.errors).map(([k, v]) => [k, (v as { message?: string }).message]),
  );
}

describe('schemaResolver', () => {
  it('passes the parsed values through when valid', async () => {
    const result = await schemaResolver(loginInput)(
      { username: ' root ', password: 'secret' },
      undefined,
      options,
    );
    expect(result).toEqual({ values: { username: 'root', password: 'secret' }, errors: {} });
  });

  it('says "required" for empty login fields', async () => {
    expect(await messagesOf(loginInput, { username: '', password: '' })).toEqual({
      username: '此项为必填项',
      password: '此项为必填项',
    });
  });

  it('translates the register rules of the shared schema', async () => {
    const values = {
      username: 'ab',
      email: 'nope',
      password: 'short',
      password2: 'other',
      verification_code: '',
    };
    expect(await messagesOf(registerForm, values)).toEqual({
      username: '至少需要 3 个字符',
      email: '邮箱地址格式不正确',
      password: '至少需要 8 个字符',
      password2: '两次输入的密码不一致',
    });
    const mismatch = { username: 'alice', email: '', password: 'longenough', password2: 'different' };
    expect(await messagesOf(registerForm, mismatch)).toEqual({ password2: '两次输入的密码不一致' });
  });

  it('uses the current language', async () => {
    await i18n.changeLanguage('en_US');
    expect(
      await messagesOf(registerForm, {
        username: 'a!b',
        email: '',
        password: 'longenough',
        password2: 'longenough',
      }),
    ).toEqual({
      username: 'Only letters, digits, "_", "." and "-" are allowed',
    });
  });
});
