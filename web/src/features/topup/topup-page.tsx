import AccountBalanceWalletOutlined from '@mui/icons-material/AccountBalanceWalletOutlined';
import OpenInNew from '@mui/icons-material/OpenInNew';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import {
  PayRequestType,
  priceOrder,
  TOPUP_MAX,
  type TopupAmountProblem,
  topupAmountProblem,
} from '@switchyard/domain';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { QRCodeSVG } from 'qrcode.react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { MessageKey } from '../../i18n/message-key';
import { useQuotaFormat } from '../../lib/quota-format';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { selfQueryKey, useSelf } from '../account/api';
import { type Gateway, type OrderAnswer, orderStatus, placeOrder, redeemCode, useGateways } from './api';

const PROBLEM_TEXT: Record<TopupAmountProblem, MessageKey> = {
  required: 'user.topup.amountRequired',
  notWholePositive: 'user.topup.amountWhole',
  tooLarge: 'user.topup.amountTooLarge',
  belowMinimum: 'user.topup.amountBelowMin',
};

/** Orders are in whole US dollars (a currency code, not a text to translate). */
const ORDER_UNIT = 'USD';

/** How often the console asks whether an order has been paid. */
const POLL_MS = 2000;

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

/** RechargeDiscount (JSON text in the site status) as amount -> factor; bad text means none. */
function parseDiscounts(text: string): Record<string, number> {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/**
 * Waits for `tradeNo` to be paid: polls the order's status, then tells the user, refreshes the
 * balance and calls `onPaid`.
 */
function usePaidOrder(tradeNo: string | null, onPaid: () => void) {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormat();
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ['user', 'order', tradeNo],
    enabled: tradeNo !== null,
    queryFn: () => orderStatus(tradeNo ?? ''),
    refetchInterval: (q) => (q.state.data?.status === 'pending' || !q.state.data ? POLL_MS : false),
  });
  const paid = status.data?.status === 'success';
  const quota = status.data?.quota ?? 0;
  useEffect(() => {
    if (!paid) return;
    toast.success(t('user.topup.paid', { amount: formatQuota(quota) }));
    void queryClient.invalidateQueries({ queryKey: selfQueryKey });
    onPaid();
  }, [paid, quota, t, formatQuota, queryClient, onPaid]);
  return status.data?.status;
}

function QrDialog(props: { answer: OrderAnswer | null; gateway: Gateway | undefined; onClose: () => void }) {
  const { t } = useTranslation();
  usePaidOrder(props.answer?.trade_no ?? null, props.onClose);
  return (
    <Dialog open={props.answer !== null} onClose={props.onClose} data-testid="topup-qr-dialog">
      <DialogTitle>{t('user.topup.scanTitle')}</DialogTitle>
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 2 }}>
        <Typography color="text.secondary">
          {t('user.topup.scanHint', { name: props.gateway?.name ?? '' })}
        </Typography>
        {props.answer && (
          <Box sx={{ p: 1, bgcolor: '#fff' }} data-testid="topup-qr" data-payload={props.answer.data.url}>
            <QRCodeSVG value={props.answer.data.url} size={220} marginSize={2} />
          </Box>
        )}
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <CircularProgress size={16} />
          <Typography variant="body2">{t('user.topup.waiting')}</Typography>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * Back from a gateway's page with ?out_trade_no= (the name EPay and Alipay also use for it): waits
 * for the callback and says when it is in.
 */
function ReturnedOrder() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tradeNo = params.get('out_trade_no');
  const done = useCallback(() => {
    setParams(new URLSearchParams());
  }, [setParams]);
  const status = usePaidOrder(tradeNo, done);
  if (!tradeNo || status === 'success') return null;
  return (
    <Alert severity="info" data-testid="topup-returned" sx={{ mb: 2 }} onClose={done}>
      {status === undefined ? t('user.topup.checking') : t('user.topup.notYetPaid')}
    </Alert>
  );
}

function OnlineTopup() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const formatQuota = useQuotaFormat();
  const minimum = Math.max(1, site.PaymentMinAmount);
  const discounts = useMemo(() => parseDiscounts(site.RechargeDiscount), [site.RechargeDiscount]);
  const presets = Object.keys(discounts)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n >= minimum && n <= TOPUP_MAX)
    .sort((a, b) => a - b);
  const [amount, setAmount] = useState('');
  const [touched, setTouched] = useState(false);
  const [chosen, setChosen] = useState<string | null>(null);
  const [qr, setQr] = useState<OrderAnswer | null>(null);
  const gateways = useGateways();
  const list = [...(gateways.data ?? [])].sort((a, b) => a.sort - b.sort);
  const selected = list.find((g) => g.uuid === chosen) ?? list[0];
  const problem = topupAmountProblem(amount, minimum);
  const order = useMutation({
    mutationFn: placeOrder,
    onSuccess: (answer) => (answer.type === PayRequestType.QrCode ? setQr(answer) : goToPayment(answer)),
  });
  const closeQr = useCallback(() => setQr(null), []);

  if (gateways.isPending) return null;
  if (list.length === 0) {
    return (
      <Alert severity="info" data-testid="topup-no-gateway">
        <AlertTitle>{t('user.topup.adminSetupRequired')}</AlertTitle>
        {t('user.topup.noGateway')}
      </Alert>
    );
  }
  const price =
    selected && problem === null
      ? priceOrder(Number(amount.trim()), selected, discounts, site.PaymentUSDRate || 1)
      : null;
  const submit = () => {
    setTouched(true);
    if (problem || !selected) return;
    order.mutate({ uuid: selected.uuid, amount: Number(amount.trim()) });
  };
  const money = (v: number) => `${v.toFixed(2)} ${price?.currency ?? ''}`;
  return (
    <Stack spacing={2} sx={{ maxWidth: 520 }}>
      <ToggleButtonGroup
        exclusive
        value={selected?.uuid ?? null}
        onChange={(_, uuid: string | null) => uuid && setChosen(uuid)}
        sx={{ flexWrap: 'wrap' }}
      >
        {list.map((g) => (
          <ToggleButton
            key={g.uuid}
            value={g.uuid}
            sx={{ gap: 1, textTransform: 'none' }}
            data-testid={`topup-gateway-${g.type}`}
          >
            <Avatar src={g.icon || undefined} alt={g.name} sx={{ width: 24, height: 24 }} variant="rounded" />
            {g.name}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
      {presets.length > 0 && (
        <Box>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {t('user.topup.presets')}
          </Typography>
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }}>
            {presets.map((n) => {
              const factor = discounts[String(n)] ?? 1;
              return (
                <Chip
                  key={n}
                  clickable
                  color={amount.trim() === String(n) ? 'primary' : 'default'}
                  onClick={() => {
                    setAmount(String(n));
                    setTouched(true);
                  }}
                  label={
                    factor < 1
                      ? `${n} · ${t('user.topup.discountOff', {
                          factor: Math.round(factor * 100) / 10,
                          percent: Math.round((1 - factor) * 100),
                        })}`
                      : String(n)
                  }
                  data-testid={`topup-preset-${n}`}
                />
              );
            })}
          </Stack>
        </Box>
      )}
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
        slotProps={{
          htmlInput: { inputMode: 'numeric', 'data-testid': 'topup-amount' },
          input: { endAdornment: <InputAdornment position="end">{ORDER_UNIT}</InputAdornment> },
        }}
      />
      {selected && (selected.fixed_fee > 0 || selected.percent_fee > 0) && (
        <Typography variant="body2" color="text.secondary">
          {t('user.topup.fees', {
            fixed: selected.fixed_fee,
            percent: Math.round(selected.percent_fee * 10000) / 100,
            currency: ORDER_UNIT,
          })}
        </Typography>
      )}
      {price && (
        <Box
          component="dl"
          sx={{ m: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: 2, rowGap: 0.5 }}
          data-testid="topup-breakdown"
        >
          <Typography component="dt" color="text.secondary">
            {t('user.topup.breakdownAmount')}
          </Typography>
          <Typography component="dd" sx={{ m: 0 }}>{`${price.amount} ${ORDER_UNIT}`}</Typography>
          {price.discount > 0 && (
            <>
              <Typography component="dt" color="text.secondary">
                {t('user.topup.breakdownDiscount')}
              </Typography>
              <Typography component="dd" sx={{ m: 0 }}>{`-${money(price.discount)}`}</Typography>
            </>
          )}
          {price.fee > 0 && (
            <>
              <Typography component="dt" color="text.secondary">
                {t('user.topup.breakdownFee')}
              </Typography>
              <Typography component="dd" sx={{ m: 0 }}>{`+${money(price.fee)}`}</Typography>
            </>
          )}
          <Typography component="dt" color="text.secondary">
            {t('user.topup.breakdownTotal')}
          </Typography>
          <Typography component="dd" sx={{ m: 0, fontWeight: 700 }} data-testid="topup-total">
            {money(price.total)}
          </Typography>
          <Typography component="dt" color="text.secondary">
            {t('user.topup.breakdownQuota')}
          </Typography>
          <Typography component="dd" sx={{ m: 0 }}>
            {formatQuota(price.amount * site.quota_per_unit)}
          </Typography>
          {price.currency === 'CNY' && (
            <Typography variant="caption" color="text.secondary" sx={{ gridColumn: '1 / -1' }}>
              {t('user.topup.breakdownRate', { rate: site.PaymentUSDRate })}
            </Typography>
          )}
        </Box>
      )}
      <Box>
        <Button variant="contained" onClick={submit} disabled={order.isPending} data-testid="topup-pay">
          {t('user.topup.pay')}
        </Button>
      </Box>
      <QrDialog answer={qr} gateway={selected} onClose={closeQr} />
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
    mutationFn: redeemCode,
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

/**
 * Top-up (tabs: online top-up, redemption code), amounts whole and within the minimum and 1000000.
 */
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
        <CardContent>
          <ReturnedOrder />
          {tab === 'online' ? <OnlineTopup /> : <RedeemCode />}
        </CardContent>
      </Card>
    </Stack>
  );
}
