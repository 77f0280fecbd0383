import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type APIRequestContext, expect, request as newRequest, type Page, test } from '@playwright/test';
import { type FakeAlipay, rsaKeyPair, startFakeAlipay } from '../../server/src/payments/fakes/fake-alipay';
import { type FakeEpay, startFakeEpay } from '../../server/src/payments/fakes/fake-epay';
import { type FakeStripe, startFakeStripe } from '../../server/src/payments/fakes/fake-stripe';
import { type FakeWechatPay, startFakeWechatPay } from '../../server/src/payments/fakes/fake-wechat-pay';
import { toast } from './support';

// Online top-up paid end to end in a browser through each gateway type, against fakes that sign
// as the real gateways do: choose the gateway and an amount, pay on the gateway's page (or "scan"
// the QR code on another page), and see the toast and the balance rise. The gateways live on a
// server of this file's own, so the other specs keep a server without any.
test.describe.configure({ mode: 'serial' });

const ROOT_PASSWORD = 'root-pay-e2e-password';
const STRIPE_KEY = 'sk_test_e2e';
const STRIPE_WHSEC = 'whsec_e2esecret';
const EPAY_KEY = 'epay-e2e-key';
const WX_V3_KEY = 'abcdefghijklmnopqrstuvwxyz012345';

let server: ChildProcess;
let dataDir: string;
let base: string;
let root: APIRequestContext;
let stripe: FakeStripe;
let epay: FakeEpay;
let alipay: FakeAlipay;
let wechat: FakeWechatPay;
const uuids: Record<string, string> = {};
const user = { username: `payer${process.pid % 10000}`, password: 'payer-e2e-password' };

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function ok(res: Awaited<ReturnType<APIRequestContext['post']>>) {
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data;
}

async function signIn(page: Page) {
  await page.goto(`${base}/login`);
  await page.getByTestId('login-username').fill(user.username);
  await page.getByTestId('login-password').fill(user.password);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
}

/** Opens the top-up form with `type` chosen and 10 (a preset with a 10% discount) entered. */
async function chooseTen(page: Page, type: string, total: string) {
  await page.goto(`${base}/panel/topup`);
  await page.getByTestId('topup-tab-online').click();
  await page.getByTestId(`topup-gateway-${type}`).click();
  await page.getByTestId('topup-preset-10').click();
  await expect(page.getByTestId('topup-total')).toHaveText(total);
}

test.beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dataDir = mkdtempSync(join(tmpdir(), 'switchyard-pay-e2e-'));
  server = spawn(process.execPath, ['server/dist/main.js'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      INITIAL_ROOT_PASSWORD: ROOT_PASSWORD,
      LOG_LEVEL: 'warn',
      CRITICAL_RATE_LIMIT: '0',
      API_RATE_LIMIT: '0',
      // The fake gateways listen on loopback, which the outbound policy refuses unless listed.
      OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8,::1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`${base}/api/status`)).status;
        } catch {
          return 0;
        }
      },
      { timeout: 60_000 },
    )
    .toBe(200);
  root = await newRequest.newContext({ baseURL: base });
  await ok(await root.post('/api/user/login', { data: { username: 'root', password: ROOT_PASSWORD } }));
  await ok(
    await root.put('/api/option/', {
      data: {
        options: { ServerAddress: base, RechargeDiscount: '{"10": 0.9, "50": 0.8}', PaymentUSDRate: '7' },
      },
    }),
  );
  const app = rsaKeyPair();
  const merchant = rsaKeyPair();
  stripe = await startFakeStripe({
    secretKey: STRIPE_KEY,
    webhookSecret: STRIPE_WHSEC,
    webhookUrl: () => `${base}/api/payment/notify/${uuids.stripe}`,
  });
  epay = await startFakeEpay({ partnerId: '1001', key: EPAY_KEY });
  alipay = await startFakeAlipay({ appId: '2021000000000002', appPublicKey: app.publicKey });
  wechat = await startFakeWechatPay({
    mchId: '1900000002',
    appId: 'wx0000000000000002',
    apiV3Key: WX_V3_KEY,
    merchantPublicKey: merchant.publicKey,
    merchantSerial: 'E2E0000000000000000000000000000000000001',
  });
  const gateways: Record<string, Record<string, unknown>> = {
    stripe: {
      name: 'Card',
      currency: 'USD',
      config: { secret_key: STRIPE_KEY, webhook_secret: STRIPE_WHSEC, api_base: stripe.url },
    },
    epay: {
      name: 'EPay',
      currency: 'CNY',
      config: { pay_domain: epay.url, partner_id: '1001', key: EPAY_KEY, pay_type: 'alipay' },
    },
    alipay: {
      name: 'Alipay',
      currency: 'CNY',
      config: {
        app_id: '2021000000000002',
        private_key: app.privateKey,
        public_key: alipay.alipayPublicKey,
        pay_type: 'pagepay',
        api_base: `${alipay.url}/gateway.do`,
      },
    },
    wxpay: {
      name: 'WeChat',
      currency: 'CNY',
      config: {
        app_id: 'wx0000000000000002',
        mch_id: '1900000002',
        mch_certificate_serial_number: 'E2E0000000000000000000000000000000000001',
        mch_apiv3_key: WX_V3_KEY,
        mch_private_key: merchant.privateKey,
        platform_public_key: wechat.platformPublicKey,
        api_base: wechat.url,
      },
    },
  };
  for (const [type, body] of Object.entries(gateways)) {
    const created = await ok(
      await root.post('/api/payment', { data: { type, icon: '/favicon.ico', notify_domain: base, ...body } }),
    );
    uuids[type] = created.uuid;
  }
  await ok(await root.post('/api/user/register', { data: user }));
});

test.afterAll(async () => {
  await root?.dispose();
  await Promise.all([stripe?.close(), epay?.close(), alipay?.close(), wechat?.close()]);
  server?.kill('SIGTERM');
  await new Promise((resolve) => (server?.exitCode !== null ? resolve(null) : server.once('exit', resolve)));
  rmSync(dataDir, { recursive: true, force: true });
});

test('Stripe: Checkout page, signed webhook, the balance rises', async ({ page }) => {
  await signIn(page);
  await chooseTen(page, 'stripe', '9.00 USD');
  await expect(page.getByTestId('topup-balance')).toHaveText('$0.00');
  await page.getByTestId('topup-pay').click();
  await expect(page.getByTestId('fake-amount')).toHaveText('9.00 USD');
  await page.getByTestId('fake-pay').click();
  await expect(page).toHaveURL(/\/panel\/topup/);
  await expect(toast(page, '支付成功')).toBeVisible();
  await expect(page.getByTestId('topup-balance')).toHaveText('$10.00');
});

test('EPay: signed link, MD5-signed notice, the balance rises', async ({ page }) => {
  await signIn(page);
  await chooseTen(page, 'epay', '63.00 CNY');
  await page.screenshot({ path: test.info().outputPath('topup-breakdown.png') });
  await page.getByTestId('topup-pay').click();
  await expect(page.getByTestId('fake-amount')).toHaveText('63.00 CNY');
  await page.getByTestId('fake-pay').click();
  await expect(page).toHaveURL(/\/panel\/topup/);
  await expect(toast(page, '支付成功')).toBeVisible();
  await expect(page.getByTestId('topup-balance')).toHaveText('$20.00');
});

test('Alipay: RSA2-signed page pay and notice, the balance rises', async ({ page }) => {
  await signIn(page);
  await chooseTen(page, 'alipay', '63.00 CNY');
  await page.getByTestId('topup-pay').click();
  await expect(page.getByTestId('fake-amount')).toHaveText('63.00 CNY');
  await page.getByTestId('fake-pay').click();
  await expect(page).toHaveURL(/\/panel\/topup/);
  await expect(toast(page, '支付成功')).toBeVisible();
  await expect(page.getByTestId('topup-balance')).toHaveText('$30.00');
});

test('WeChat Pay: QR code scanned on a "phone", sealed and signed notice, the balance rises', async ({
  page,
  context,
}) => {
  await signIn(page);
  await chooseTen(page, 'wxpay', '63.00 CNY');
  await page.getByTestId('topup-pay').click();
  const qr = page.getByTestId('topup-qr');
  await expect(qr.locator('svg')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('topup-qr.png') });
  const payload = await qr.getAttribute('data-payload');
  expect(payload).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/);
  const phone = await context.newPage();
  await phone.goto(wechat.scanUrl(payload!));
  await expect(phone.getByTestId('fake-amount')).toHaveText('63.00 CNY');
  await phone.getByTestId('fake-pay').click();
  await expect(phone.locator('body')).toHaveText('paid');
  await phone.close();
  await expect(toast(page, '支付成功')).toBeVisible();
  await expect(page.getByTestId('topup-qr-dialog')).toBeHidden();
  await expect(page.getByTestId('topup-balance')).toHaveText('$40.00');
  // The order log shows the four paid orders.
  const orders = await ok(await root.get('/api/payment/order', { params: { status: 'success' } }));
  expect(orders.total_count).toBe(4);
});

test('the administrator sees the paid orders and edits a gateway without retyping its secrets', async ({
  page,
}) => {
  await page.goto(`${base}/login`);
  await page.getByTestId('login-username').fill('root');
  await page.getByTestId('login-password').fill(ROOT_PASSWORD);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
  await page.goto(`${base}/panel/payment`);
  const paid = page.getByRole('row').filter({ hasText: '已支付' });
  await expect(paid).toHaveCount(4);
  await page.screenshot({ path: test.info().outputPath('payment-orders.png'), fullPage: true });
  await page.getByTestId('payment-tab-gateways').click();
  const table = page.getByTestId('gateway-table');
  await expect(table.getByRole('row')).toHaveCount(5);
  await table.getByRole('row').filter({ hasText: 'Card' }).getByRole('button', { name: '编辑' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText('已保存；留空则保持不变')).toHaveCount(2);
  await page.screenshot({ path: test.info().outputPath('payment-gateway-dialog.png') });
  await dialog.getByLabel('名称').fill('Card (Stripe)');
  await dialog.getByTestId('form-submit').click();
  await expect(dialog).toBeHidden();
  await expect(table.getByRole('row').filter({ hasText: 'Card (Stripe)' })).toBeVisible();
  // The secrets were kept: the renamed gateway still opens Stripe sessions.
  const gateways = await ok(await root.get('/api/payment', { params: { type: 'stripe' } }));
  expect(gateways.data[0].secrets_set.sort()).toEqual(['secret_key', 'webhook_secret']);
  await page.screenshot({ path: test.info().outputPath('payment-gateways.png') });
});
