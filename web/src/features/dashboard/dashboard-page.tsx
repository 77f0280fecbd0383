import AccountBalanceWalletOutlined from '@mui/icons-material/AccountBalanceWalletOutlined';
import BoltOutlined from '@mui/icons-material/BoltOutlined';
import DataUsageOutlined from '@mui/icons-material/DataUsageOutlined';
import PaidOutlined from '@mui/icons-material/PaidOutlined';
import SendOutlined from '@mui/icons-material/SendOutlined';
import TokenOutlined from '@mui/icons-material/TokenOutlined';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CardHeader from '@mui/material/CardHeader';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { renderNumber } from '@switchyard/domain';
import type { QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyField } from '../../components/copy-field';
import { DeferredMount } from '../../components/deferred-mount';
import type { MessageKey } from '../../i18n/message-key';
import { currencyTickDigits } from '../../lib/chart-ticks';
import { useQuotaFormat } from '../../lib/quota-format';
import { useSiteInfo } from '../../lib/site-info';
import { readText, StorageKey } from '../../lib/storage';
import { selfQuery, useInviteLink, useSelf } from '../account/api';
import { useAvailableModels } from '../model-price/api';
import { type DailyModelUsage, dashboardQuery, useDashboard } from './api';
import { lastSevenDays, seriesByModel, totalsOn } from './daily-usage';

type Metric = 'quota' | 'requests' | 'tokens';
const METRICS: Record<Metric, (r: DailyModelUsage) => number> = {
  quota: (r) => r.quota,
  requests: (r) => r.requestCount,
  tokens: (r) => r.promptTokens + r.completionTokens,
};

interface Stat {
  label: MessageKey;
  value: string | undefined;
  /** The exact figure behind a rounded one (currency shows two decimals), on hover. */
  exact?: number | undefined;
  icon: typeof SendOutlined;
  testId: string;
}

function StatCard({ label, value, exact, icon: Icon, testId }: Stat) {
  const { t } = useTranslation();
  return (
    <Card>
      <CardContent sx={{ display: 'flex', alignItems: 'center', gap: 2 }}>
        <Box
          sx={{
            display: 'grid',
            placeItems: 'center',
            width: 48,
            height: 48,
            borderRadius: 2,
            bgcolor: 'primary.main',
            color: 'primary.contrastText',
            flexShrink: 0,
          }}
        >
          <Icon />
        </Box>
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="body2" color="text.secondary">
            {t(label)}
          </Typography>
          <Typography
            variant="h5"
            sx={{ fontWeight: 700 }}
            data-testid={testId}
            title={exact === undefined ? undefined : String(exact)}
          >
            {value ?? <Skeleton width={80} />}
          </Typography>
        </Box>
      </CardContent>
    </Card>
  );
}

// The chart library is the largest part of this screen: the figures show while it loads.
const WeekChart = lazy(() => import('./week-chart'));

/**
 * The figures cards' data (the user, the week's usage) before the first draw: the boot module already
 * has both on the wire, so the cards are drawn with their figures instead of skeletons.
 */
export async function prefetch(client: QueryClient): Promise<void> {
  // Without a session the layout sends the visitor to /login; asking would only earn a 401.
  if (readText(StorageKey.user) === null) return;
  // A failure is the page's to show (its own query asks again), not the router's.
  const ignore = () => undefined;
  await Promise.all([
    client.ensureQueryData(selfQuery).catch(ignore),
    client.ensureQueryData(dashboardQuery).catch(ignore),
  ]);
}

/** The dashboard: balance and usage, today's figures, seven days per model, models, invite link. */
export default function DashboardPage() {
  const formatQuota = useQuotaFormat();
  const { data: self } = useSelf();
  const { data: usage } = useDashboard();

  const days = useMemo(() => lastSevenDays(new Date()), []);
  const today = usage && totalsOn(usage, days[days.length - 1] ?? '');

  const stats: Stat[] = [
    {
      label: 'dashboard.balance',
      value: self && formatQuota(self.quota),
      exact: self?.quota,
      icon: AccountBalanceWalletOutlined,
      testId: 'dashboard-balance',
    },
    {
      label: 'dashboard.used',
      value: self && formatQuota(self.used_quota),
      exact: self?.used_quota,
      icon: DataUsageOutlined,
      testId: 'dashboard-used',
    },
    {
      label: 'dashboard.requests',
      value: self && renderNumber(self.request_count),
      icon: SendOutlined,
      testId: 'dashboard-requests',
    },
    {
      label: 'user.dashboard.todayRequests',
      value: today && renderNumber(today.requests),
      icon: BoltOutlined,
      testId: 'dashboard-today-requests',
    },
    {
      label: 'user.dashboard.todayQuota',
      value: today && formatQuota(today.quota),
      exact: today?.quota,
      icon: PaidOutlined,
      testId: 'dashboard-today-quota',
    },
    {
      label: 'user.dashboard.todayTokens',
      value: today && renderNumber(today.tokens),
      icon: TokenOutlined,
      testId: 'dashboard-today-tokens',
    },
  ];

  return (
    <Box sx={{ display: 'grid', gap: 3 }}>
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', sm: 'repeat(3, 1fr)' } }}>
        {stats.map((s) => (
          <StatCard key={s.testId} {...s} />
        ))}
      </Box>
      {/* Below the figures: drawn once they are committed, so they come first on a slow device. */}
      <DeferredMount>
        <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', lg: '2fr 1fr' } }}>
          <WeekCard days={days} usage={usage} />
          <Box sx={{ display: 'grid', gap: 3, alignContent: 'start' }}>
            <InviteCard />
            <ModelsCard group={self?.group} />
          </Box>
        </Box>
      </DeferredMount>
    </Box>
  );
}

/** Seven days per model, by the chosen measure. */
function WeekCard({ days, usage }: { days: string[]; usage: DailyModelUsage[] | undefined }) {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormat();
  const site = useSiteInfo();
  const [metric, setMetric] = useState<Metric>('quota');
  const series = useMemo(() => seriesByModel(usage ?? [], days, METRICS[metric]), [usage, days, metric]);

  // Bars of a few cents need more than two decimals to tell apart, and ticks as many as their
  // spacing takes (the stacked day totals set the axis).
  const dayTotals = days.map((_, i) => series.reduce((sum, s) => sum + (s.data[i] ?? 0), 0));
  const digits = currencyTickDigits(Math.max(0, ...dayTotals) / site.quota_per_unit);
  const valueFormatter = (v: number | null) =>
    v === null ? '' : metric === 'quota' ? formatQuota(v, Math.max(4, digits)) : renderNumber(v);
  const tickFormatter = (v: number) => (metric === 'quota' ? formatQuota(v, digits) : renderNumber(v));

  return (
    <Card>
      <CardHeader
        title={t('user.dashboard.weekTitle')}
        subheader={t('user.dashboard.weekHint')}
        action={
          <ToggleButtonGroup
            size="small"
            exclusive
            value={metric}
            onChange={(_, next: Metric | null) => next && setMetric(next)}
          >
            <ToggleButton value="quota">{t('user.dashboard.metricQuota')}</ToggleButton>
            <ToggleButton value="requests">{t('user.dashboard.metricRequests')}</ToggleButton>
            <ToggleButton value="tokens">{t('user.dashboard.metricTokens')}</ToggleButton>
          </ToggleButtonGroup>
        }
      />
      <CardContent data-testid="dashboard-week-chart">
        {usage === undefined ? (
          <Skeleton variant="rounded" height={300} />
        ) : series.length === 0 ? (
          <Typography color="text.secondary" sx={{ py: 8, textAlign: 'center' }}>
            {t('user.dashboard.noUsage')}
          </Typography>
        ) : (
          <Suspense fallback={<Skeleton variant="rounded" height={300} />}>
            <WeekChart
              days={days}
              series={series}
              valueFormatter={valueFormatter}
              tickFormatter={tickFormatter}
            />
          </Suspense>
        )}
      </CardContent>
    </Card>
  );
}

function InviteCard() {
  const { t } = useTranslation();
  const inviteLink = useInviteLink();
  return (
    <Card>
      <CardHeader title={t('user.dashboard.inviteTitle')} subheader={t('user.dashboard.inviteHint')} />
      <CardContent>
        <CopyField
          label={t('user.common.inviteLink')}
          value={inviteLink}
          name={t('user.common.inviteLink')}
          testId="dashboard-invite-link"
        />
      </CardContent>
    </Card>
  );
}

/** The models the user's group may call (every model until the user is known). */
function ModelsCard({ group }: { group: string | undefined }) {
  const { t } = useTranslation();
  const { data: models } = useAvailableModels();
  const ownModels = useMemo(
    () =>
      Object.entries(models ?? {})
        .filter(([, m]) => group === undefined || m.groups.includes(group))
        .map(([name]) => name),
    [models, group],
  );
  return (
    <Card>
      <CardHeader title={t('user.dashboard.modelsTitle')} />
      <CardContent
        sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, maxHeight: 260, overflow: 'auto' }}
        data-testid="dashboard-models"
      >
        {models === undefined ? (
          <Skeleton width="100%" />
        ) : ownModels.length === 0 ? (
          <Typography color="text.secondary">{t('user.dashboard.noModels')}</Typography>
        ) : (
          ownModels.map((name) => <Chip key={name} label={name} size="small" variant="outlined" />)
        )}
      </CardContent>
    </Card>
  );
}
