import AccountBalanceWalletOutlined from '@mui/icons-material/AccountBalanceWalletOutlined';
import OpenInNew from '@mui/icons-material/OpenInNew';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { TOPUP_MAX, type TopupAmountProblem, topupAmountProblem } from '@switchyard/domain';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageKey } from '../../i18n/message-key';
import { apiGet, apiPost } from '../../lib/api-client';
import { useQuotaFormat } from '../../lib/quota-format';
import { toast } from '../../lib/toast';
import { selfQueryKey, useSelf } from '../account/use-self';
import { useSiteInfo } from '../site/site-info';

/** An enabled payment gateway as GET /api/user/payment lists it (reference §2.3). */
interface Gateway {
  uuid: string;
  name: string;
  icon: string;
  fixed_fee: number;
  percent_fee: number;
  currency: string;
  sort: number;
}

/** POST /api/user/order's answer: where to pay. */
interface OrderAnswer {
  trade_no: string;
  type: number;
  data: { url: string; method?: string; params?: Record<string, string> };
}

const PROBLEM_TEXT: Record<TopupAmountProblem, MessageKey> = {
  required: 'user.topup.amountRequired',
  notWholePositive: 'user.topup.amountWhole',
  tooLarge: 'user.topup.amountTooLarge',
  belowMinimum: 'user.topup.amountBelowMin',
};

/** Leaves for the gateway's page: a plain link, or a form the gateway wants posted. */
function goToPayment(answer: OrderAnswer): void {
  const { url, method, params } = answer.data;
  if (method?.toUpperCase() === 'POST' && params) {
    const form = document.createElement('form');
    form.method = 'POST';
    form.action = url;
    for (const [name, value] of Object.entries(params)) {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = value;
      form.appendChild(input);
    }
    document.body.appendChild(form);
    form.submit();
    return;
  }
  window.location.assign(url);
}

function useGateways() {
  return useQuery({
    queryKey: ['user', 'payment'],
    // Online payment is optional: a server without gateways (or without the route) means "not set up".
    queryFn: () => apiGet<Gateway[]>('/api/user/payment', { silent: true }).catch(() => [] as Gateway[]),
  });
}

function OnlineTopup() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const minimum = Math.max(1, site.PaymentMinAmount);
  const [amount, setAmount] = useState('');
  const [touched, setTouched] = useState(false);
  const [chosen, setChosen] = useState<string | null>(null);
  const gateways = useGateways();
  const list = [...(gateways.data ?? [])].sort((a, b) => a.sort - b.sort);
  const selected = list.find((g) => g.uuid === chosen) ?? list[0];
  const problem = topupAmountProblem(amount, minimum);
  const order = useMutation({
    mutationFn: (body: { uuid: string; amount: number }) => apiPost<OrderAnswer>('/api/user/order', body),
    onSuccess: goToPayment,
  });

  if (gateways.isPending) return null;
  if (list.length === 0) {
    return (
      <Alert severity="info" data-testid="topup-no-gateway">
        <AlertTitle>{t('user.topup.adminSetupRequired')}</AlertTitle>
        {t('user.topup.noGateway')}
      </Alert>
    );
  }
  const submit = () => {
    setTouched(true);
    if (problem || !selected) return;
    order.mutate({ uuid: selected.uuid, amount: Number(amount.trim()) });
  };
  return (
    <Stack spacing={2} sx={{ maxWidth: 520 }}>
      <ToggleButtonGroup
        exclusive
        value={selected?.uuid ?? null}
        onChange={(_, uuid: string | null) => uuid && setChosen(uuid)}
        sx={{ flexWrap: 'wrap' }}
      >
        {list.map((g) => (
          <ToggleButton key={g.uuid} value={g.uuid} sx={{ gap: 1, textTransform: 'none' }}>
            <Avatar src={g.icon || undefined} alt={g.name} sx={{ width: 24, height: 24 }} variant="rounded" />
            {g.name}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
      <TextField
        label={t('user.topup.amount')}
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
        onBlur={() => setTouched(true)}
        error={touched && problem !== null}
        helperText={
          touched && problem
            ? t(PROBLEM_TEXT[problem], { min: minimum, max: TOPUP_MAX })
            : t('user.topup.amountHint', { min: minimum, max: TOPUP_MAX })
        }
        slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'topup-amount' } }}
      />
      {selected && (selected.fixed_fee > 0 || selected.percent_fee > 0) && (
        <Typography variant="body2" color="text.secondary">
          {t('user.topup.fees', {
            fixed: selected.fixed_fee,
            percent: Math.round(selected.percent_fee * 10000) / 100,
            currency: selected.currency,
          })}
        </Typography>
      )}
      <Box>
        <Button variant="contained" onClick={submit} disabled={order.isPending} data-testid="topup-pay">
          {t('user.topup.pay')}
        </Button>
      </Box>
    </Stack>
  );
}

function RedeemCode() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const formatQuota = useQuotaFormat();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const [touched, setTouched] = useState(false);
  const redeem = useMutation({
    mutationFn: (key: string) => apiPost<number>('/api/user/topup', { key }),
    onSuccess: (quota) => {
      toast.success(t('user.topup.redeemed', { amount: formatQuota(quota) }));
      setCode('');
      setTouched(false);
      void queryClient.invalidateQueries({ queryKey: selfQueryKey });
    },
  });
  const empty = code.trim() === '';
  const buyCode = () => {
    if (!site.top_up_link) {
      toast.error(t('user.topup.noTopUpLink'));
      return;
    }
    window.open(site.top_up_link, '_blank', 'noopener');
  };
  return (
    <Stack
      component="form"
      spacing={2}
      sx={{ maxWidth: 520 }}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        if (!empty) redeem.mutate(code.trim());
      }}
    >
      <TextField
        label={t('user.topup.code')}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        error={touched && empty}
        helperText={touched && empty ? t('user.topup.codeRequired') : t('user.topup.codeHint')}
        slotProps={{ htmlInput: { 'data-testid': 'topup-code', autoComplete: 'off' } }}
      />
      <Stack direction="row" spacing={1}>
        <Button type="submit" variant="contained" disabled={redeem.isPending} data-testid="topup-redeem">
          {t('user.topup.redeem')}
        </Button>
        <Button variant="outlined" endIcon={<OpenInNew />} onClick={buyCode} data-testid="topup-buy">
          {t('user.topup.buyCode')}
        </Button>
      </Stack>
    </Stack>
  );
}

/** Spec §2 top-up (tabs: online top-up, redemption code) with the amount rules of §5. */
export default function TopupPage() {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormat();
  const { data: self } = useSelf();
  const gateways = useGateways();
  const [chosenTab, setTab] = useState<'online' | 'code' | null>(null);
  // Without any payment gateway the code tab is the only way to top up: it opens there.
  const tab = chosenTab ?? (gateways.data?.length === 0 ? 'code' : 'online');
  return (
    <Stack spacing={3}>
      <Card>
        <CardContent sx={{ display: 'flex', alignItems: 'center', gap: 2 }}>
          <AccountBalanceWalletOutlined color="primary" fontSize="large" />
          <Box>
            <Typography variant="body2" color="text.secondary">
              {t('dashboard.balance')}
            </Typography>
            <Typography variant="h4" sx={{ fontWeight: 700 }} data-testid="topup-balance">
              {self ? formatQuota(self.quota) : ''}
            </Typography>
          </Box>
        </CardContent>
      </Card>
      <Card>
        <Tabs value={tab} onChange={(_, v: 'online' | 'code') => setTab(v)} sx={{ px: 2 }}>
          <Tab value="online" label={t('user.topup.onlineTab')} data-testid="topup-tab-online" />
          <Tab value="code" label={t('user.topup.codeTab')} data-testid="topup-tab-code" />
        </Tabs>
        <CardContent>{tab === 'online' ? <OnlineTopup /> : <RedeemCode />}</CardContent>
      </Card>
    </Stack>
  );
}
