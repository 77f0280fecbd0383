import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { BarChart } from '@mui/x-charts/BarChart';
import { LineChart } from '@mui/x-charts/LineChart';
import { ChannelStatus, RedemptionStatus, renderNumber, renderQuota } from '@switchyard/domain';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../components/list-screen';
import type { MessageKey } from '../../i18n/message-key';
import { currencyTickDigits } from '../../lib/chart-ticks';
import { useSiteInfo } from '../../lib/site-info';
import { averageLatency, dailyTotals, daysBetween, groupedSeries } from './analytics-data';
import { useAnalyticsPeriod, useAnalyticsStatistics } from './api';

const GROUPS = ['model', 'model_type', 'channel'] as const;
const TOP = 8;
const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function StatCard(props: { title: string; children: ReactNode; testId: string }) {
  return (
    <Card variant="outlined" data-testid={props.testId}>
      <CardContent>
        <Typography variant="subtitle2" color="text.secondary" gutterBottom>
          {props.title}
        </Typography>
        {props.children}
      </CardContent>
    </Card>
  );
}

function ChartCard(props: { title: string; children: ReactNode }) {
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="subtitle1" gutterBottom>
          {props.title}
        </Typography>
        {props.children}
      </CardContent>
    </Card>
  );
}

export default function AnalyticsPage() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const display = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };
  const [params, setParams] = useSearchParams();
  const today = isoDay(Date.now());
  const end = params.get('end') ?? today;
  const start = params.get('start') ?? isoDay(Date.parse(`${end}T00:00:00Z`) - 6 * DAY);
  const group = GROUPS.find((g) => g === params.get('group')) ?? 'model';
  const set = (key: string, value: string) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      next.set(key, value);
      return next;
    });

  const statistics = useAnalyticsStatistics();
  const period = useAnalyticsPeriod(start, end, group);

  const s = statistics.data;
  const channels = (status: number) =>
    s?.channelStatistics.find((c) => c.status === status)?.totalChannels ?? 0;
  const codes = (status: number) => s?.redemptionStatistics.find((r) => r.status === status);
  const p = period.data;
  const days = p ? daysBetween(p.from, p.to) : [];
  const usage = p?.channelStatistics ?? [];
  const other = t('admin.analytics.other');
  const stacked = (value: (r: (typeof usage)[number]) => number, format?: (v: number) => string) =>
    groupedSeries(usage, days, value, TOP, other).map((series) => ({
      ...series,
      stack: 'total',
      ...(format ? { valueFormatter: (v: number | null) => format(v ?? 0) } : {}),
    }));
  const xAxis = [{ scaleType: 'band' as const, data: days }];
  // Quota axes in the site's unit (currency or the raw count), with as many decimals as their tick
  // spacing needs, and wide enough that "5,000,000" is not cut.
  const quotaAxis = (dailyMax: number) => {
    const digits = currencyTickDigits(dailyMax / site.quota_per_unit);
    return [{ valueFormatter: (v: number) => renderQuota(v, { ...display, digits }), width: 88 }];
  };
  const numberAxis = [{ valueFormatter: (v: number) => renderNumber(v), width: 72 }];
  const consumption = dailyTotals(usage, days, (r) => r.quota);
  const redeemed = dailyTotals(p?.redemptionStatistics ?? [], days, (r) => r.quota);
  const chartHeight = 280;
  // The charts' own texts (empty, loading) in the reader's language.
  const chart = {
    height: chartHeight,
    localeText: { noData: t('table.empty'), loading: t('table.loading') },
    loading: period.isPending,
  };

  return (
    <>
      <PageHeader />
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: 'repeat(4, 1fr)' },
          mb: 3,
        }}
      >
        <StatCard title={t('admin.analytics.users')} testId="stat-users">
          <Typography variant="h5">{renderNumber(s?.userStatistics.totalUser ?? 0)}</Typography>
          <Typography variant="body2" color="text.secondary">
            {t('admin.analytics.invited', { count: s?.userStatistics.totalInviterUser ?? 0 })}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {t('admin.analytics.balanceUsed', {
              balance: renderQuota(s?.userStatistics.totalQuota ?? 0, display),
              used: renderQuota(s?.userStatistics.totalUsedQuota ?? 0, display),
            })}
          </Typography>
        </StatCard>
        <StatCard title={t('admin.analytics.channels')} testId="stat-channels">
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            <Chip
              color="success"
              label={t('admin.analytics.channelCount', {
                state: t('admin.channel.status.enabled'),
                count: channels(ChannelStatus.Enabled),
              })}
            />
            <Chip
              label={t('admin.analytics.channelCount', {
                state: t('admin.channel.status.disabled'),
                count: channels(ChannelStatus.ManuallyDisabled),
              })}
            />
            <Chip
              color="warning"
              label={t('admin.analytics.channelCount', {
                state: t('admin.channel.status.autoDisabled'),
                count: channels(ChannelStatus.AutoDisabled),
              })}
            />
          </Stack>
        </StatCard>
        <StatCard title={t('admin.analytics.redemptions')} testId="stat-redemptions">
          {[RedemptionStatus.Enabled, RedemptionStatus.Used].map((status) => (
            <Typography key={status} variant="body2">
              {t('admin.analytics.redemptionCount', {
                state: t(
                  status === RedemptionStatus.Used
                    ? 'admin.redemption.status.used'
                    : 'admin.redemption.status.unused',
                ),
                count: codes(status)?.count ?? 0,
                quota: renderQuota(codes(status)?.quota ?? 0, display),
              })}
            </Typography>
          ))}
        </StatCard>
        <StatCard title={t('admin.analytics.orders')} testId="stat-orders">
          {(s?.orderStatistics ?? []).length === 0 ? (
            <Typography variant="body2" color="text.secondary">
              {t('admin.analytics.noOrders')}
            </Typography>
          ) : (
            s?.orderStatistics.map((o) => (
              <Typography key={o.orderCurrency} variant="body2">
                {t('admin.analytics.orderTotal', {
                  currency: o.orderCurrency,
                  money: o.money,
                  quota: renderQuota(o.quota, display),
                })}
              </Typography>
            ))
          )}
        </StatCard>
      </Box>
      <Stack direction="row" sx={{ gap: 2, flexWrap: 'wrap', mb: 2 }}>
        <TextField
          type="date"
          size="small"
          label={t('admin.analytics.start')}
          value={start}
          onChange={(e) => e.target.value && set('start', e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          type="date"
          size="small"
          label={t('admin.analytics.end')}
          value={end}
          onChange={(e) => e.target.value && set('end', e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          select
          size="small"
          label={t('admin.analytics.groupBy')}
          value={group}
          onChange={(e) => set('group', e.target.value)}
          sx={{ width: 180 }}
        >
          {GROUPS.map((g) => (
            <MenuItem key={g} value={g}>
              {t(`admin.analytics.group.${g}` as MessageKey)}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      {period.isError && <Typography color="error">{t('table.error')}</Typography>}
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' } }}>
        <ChartCard title={t('admin.analytics.consumption')}>
          <BarChart
            {...chart}
            xAxis={xAxis}
            yAxis={quotaAxis(Math.max(0, ...consumption))}
            series={stacked(
              (r) => r.quota,
              (v) => renderQuota(v, display),
            )}
          />
        </ChartCard>
        <ChartCard title={t('admin.analytics.tokens')}>
          <LineChart
            {...chart}
            xAxis={[{ scaleType: 'point', data: days }]}
            yAxis={numberAxis}
            series={[
              {
                label: t('admin.analytics.promptTokens'),
                data: dailyTotals(usage, days, (r) => r.promptTokens),
                curve: 'linear',
              },
              {
                label: t('admin.analytics.completionTokens'),
                data: dailyTotals(usage, days, (r) => r.completionTokens),
                curve: 'linear',
              },
            ]}
          />
        </ChartCard>
        <ChartCard title={t('admin.analytics.latency')}>
          <LineChart
            {...chart}
            xAxis={[{ scaleType: 'point', data: days }]}
            // Straight segments: a smoothed curve draws a ramp on days that had nothing.
            series={[
              {
                label: t('admin.analytics.averageSeconds'),
                data: averageLatency(usage, days),
                curve: 'linear',
              },
            ]}
          />
        </ChartCard>
        <ChartCard title={t('admin.analytics.requests')}>
          <BarChart {...chart} xAxis={xAxis} yAxis={numberAxis} series={stacked((r) => r.requestCount)} />
        </ChartCard>
        <ChartCard title={t('admin.analytics.redemptionChart')}>
          <BarChart
            {...chart}
            xAxis={xAxis}
            yAxis={quotaAxis(Math.max(0, ...redeemed))}
            series={[
              {
                label: t('admin.analytics.redeemedQuota'),
                data: redeemed,
                valueFormatter: (v: number | null) => renderQuota(v ?? 0, display),
              },
            ]}
          />
        </ChartCard>
        <ChartCard title={t('admin.analytics.registrations')}>
          <BarChart
            {...chart}
            xAxis={xAxis}
            series={[
              {
                label: t('admin.analytics.newUsers'),
                data: dailyTotals(p?.userStatistics ?? [], days, (r) => r.userCount),
              },
              {
                label: t('admin.analytics.invitedUsers'),
                data: dailyTotals(p?.userStatistics ?? [], days, (r) => r.inviterUserCount),
              },
            ]}
          />
        </ChartCard>
        <ChartCard title={t('admin.analytics.topups')}>
          <BarChart
            {...chart}
            xAxis={xAxis}
            series={[
              {
                label: t('admin.analytics.topupAmount'),
                data: dailyTotals(p?.orderStatistics ?? [], days, (r) => r.orderAmount),
              },
            ]}
          />
        </ChartCard>
      </Box>
    </>
  );
}
