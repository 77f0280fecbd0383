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
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currencyTickDigits } from '../../lib/chart-ticks';
import { useQuotaFormat } from '../../lib/quota-format';
import { useSiteInfo } from '../../lib/site-info';
import { InviteLinkCard } from '../account/invite-link-card';
import { useAvailableModels } from '../model-price/api';
import type { DailyModelUsage } from './api';
import { seriesByModel } from './daily-usage';

type Metric = 'quota' | 'requests' | 'tokens';
const METRICS: Record<Metric, (r: DailyModelUsage) => number> = {
  quota: (r) => r.quota,
  requests: (r) => r.requestCount,
  tokens: (r) => r.promptTokens + r.completionTokens,
};

// The chart library is the largest part of this screen: the figures show while it loads.
const WeekChart = lazy(() => import('./week-chart'));

/** The dashboard below its figures: seven days per model, the invite link, the models. */
export default function DashboardDetails({
  days,
  usage,
  group,
}: {
  days: string[];
  usage: DailyModelUsage[] | undefined;
  /** The user's group, once known. */
  group: string | undefined;
}) {
  return (
    <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', lg: '2fr 1fr' } }}>
      <WeekCard days={days} usage={usage} />
      <Box sx={{ display: 'grid', gap: 3, alignContent: 'start' }}>
        <InviteLinkCard testId="dashboard-invite-link" />
        <ModelsCard group={group} />
      </Box>
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
