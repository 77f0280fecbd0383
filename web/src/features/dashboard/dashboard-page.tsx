import AccountBalanceWalletOutlined from '@mui/icons-material/AccountBalanceWalletOutlined';
import BoltOutlined from '@mui/icons-material/BoltOutlined';
import DataUsageOutlined from '@mui/icons-material/DataUsageOutlined';
import PaidOutlined from '@mui/icons-material/PaidOutlined';
import SendOutlined from '@mui/icons-material/SendOutlined';
import TokenOutlined from '@mui/icons-material/TokenOutlined';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { renderNumber } from '@switchyard/domain';
import type { QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { DeferredMount } from '../../components/deferred-mount';
import type { MessageKey } from '../../i18n/message-key';
import { useQuotaFormat } from '../../lib/quota-format';
import { hasStoredUser } from '../../lib/storage';
import { selfQuery, useSelf } from '../account/api';
import { dashboardQuery, useDashboard } from './api';
import { lastSevenDays, totalsOn } from './daily-usage';

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

// Below the figures, in a chunk of its own: the first load's downloads leave the wire to the entry, and
// prefetch asks for the chunk, so it is on its way while the figures are drawn.
const loadDetails = () => import('./dashboard-details');
const DashboardDetails = lazy(loadDetails);

/**
 * The figures cards' data (the user, the week's usage) before the first draw: the boot module already
 * has both on the wire, so the cards are drawn with their figures instead of skeletons. The rest of
 * the page's chunks start loading too.
 */
export async function prefetch(client: QueryClient): Promise<void> {
  // Without a session the layout sends the visitor to /login; asking would only earn a 401.
  if (!hasStoredUser()) return;
  // The route shows a failed chunk when it mounts the details; nothing to report twice here.
  loadDetails().catch(() => undefined);
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
        <Suspense fallback={null}>
          <DashboardDetails days={days} usage={usage} group={self?.group} />
        </Suspense>
      </DeferredMount>
    </Box>
  );
}
