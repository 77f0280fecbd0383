import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A real HTTP server answering the balance endpoints of the vendors that publish one, in their wire
// shapes: OpenAI's billing views (also served by one-api-style gateways), DeepSeek, Moonshot,
// SiliconFlow and Recraft. One server plays every vendor; the channel type decides which path the
// gateway asks. The outside world of the balance tests only.

export interface FakeBalanceValues {
  openai: { hardLimitUsd: number; totalUsageCents: number };
  deepseek: {
    isAvailable: boolean;
    infos: { currency: string; total_balance: string; granted_balance: string; topped_up_balance: string }[];
  };
  moonshot: { available: number; voucher: number; cash: number };
  siliconflow: { balance: string; chargeBalance: string; totalBalance: string };
  recraft: { credits: number };
}

export interface FakeBalanceRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

export interface FakeBalance {
  /** `http://127.0.0.1:<port>`; OpenAI-style roots are `${url}/v1`. */
  url: string;
  requests: FakeBalanceRequest[];
  values: FakeBalanceValues;
  /** Answers every request with this status and OpenAI-style error until cleared with undefined. */
  failWith(status: number | undefined): void;
  close(): Promise<void>;
}

export function defaultBalanceValues(): FakeBalanceValues {
  return {
    openai: { hardLimitUsd: 120, totalUsageCents: 2550 },
    deepseek: {
      isAvailable: true,
      infos: [
        { currency: 'CNY', total_balance: '110.00', granted_balance: '10.00', topped_up_balance: '100.00' },
      ],
    },
    moonshot: { available: 49.58894, voucher: 46.58893, cash: 3.00001 },
    siliconflow: { balance: '0.88', chargeBalance: '88.00', totalBalance: '88.88' },
    recraft: { credits: 184250 },
  };
}

export async function startFakeBalance(options: { apiKey?: string } = {}): Promise<FakeBalance> {
  const requests: FakeBalanceRequest[] = [];
  const values = defaultBalanceValues();
  let failure: number | undefined;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake.local');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
    });
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      send(res, 401, {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
      return;
    }
    if (failure !== undefined) {
      send(res, failure, { error: { message: `fake balance failure ${failure}`, type: 'server_error' } });
      return;
    }
    const v = values;
    switch (url.pathname) {
      case '/v1/dashboard/billing/subscription':
        return send(res, 200, {
          object: 'billing_subscription',
          has_payment_method: true,
          soft_limit_usd: v.openai.hardLimitUsd,
          hard_limit_usd: v.openai.hardLimitUsd,
          system_hard_limit_usd: v.openai.hardLimitUsd,
          access_until: 0,
        });
      case '/v1/dashboard/billing/usage':
        if (!url.searchParams.get('start_date') || !url.searchParams.get('end_date'))
          return send(res, 400, { error: { message: 'start_date and end_date are required' } });
        return send(res, 200, { object: 'list', daily_costs: [], total_usage: v.openai.totalUsageCents });
      case '/user/balance':
        return send(res, 200, { is_available: v.deepseek.isAvailable, balance_infos: v.deepseek.infos });
      case '/v1/users/me/balance':
        return send(res, 200, {
          code: 0,
          data: {
            available_balance: v.moonshot.available,
            voucher_balance: v.moonshot.voucher,
            cash_balance: v.moonshot.cash,
          },
          scode: '0x0',
          status: true,
        });
      case '/v1/user/info':
        return send(res, 200, {
          code: 20000,
          message: 'OK',
          status: true,
          data: {
            id: 'userid',
            name: 'fake',
            image: '',
            email: 'fake@example.com',
            isAdmin: false,
            balance: v.siliconflow.balance,
            status: 'normal',
            introduction: '',
            role: '',
            chargeBalance: v.siliconflow.chargeBalance,
            totalBalance: v.siliconflow.totalBalance,
          },
        });
      case '/v1/users/me':
        return send(res, 200, {
          id: 'u_fake',
          email: 'fake@example.com',
          name: 'fake',
          credits: v.recraft.credits,
        });
      default:
        return send(res, 404, { error: { message: `Unknown request URL: ${url.pathname}` } });
    }
  }

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    values,
    failWith(status) {
      failure = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
