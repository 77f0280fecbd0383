import AccountBalanceWalletOutlined from '@mui/icons-material/AccountBalanceWalletOutlined';
import DataUsageOutlined from '@mui/icons-material/DataUsageOutlined';
import SendOutlined from '@mui/icons-material/SendOutlined';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { renderNumber, renderQuota } from '@switchyard/domain';
import { useTranslation } from 'react-i18next';
import type { MessageKey } from '../../i18n/message-key';
import { useSelf } from '../account/use-self';
import { useSiteInfo } from '../site/site-info';

/** A first dashboard: the user's balance, usage and request count (the charts come with their issue). */
export default function DashboardPage() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const { data: self } = useSelf();
  const display = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };
  const stats: { label: MessageKey; value: string | undefined; icon: typeof SendOutlined; testId: string }[] =
    [
      {
        label: 'dashboard.balance',
        value: self && renderQuota(self.quota, display),
        icon: AccountBalanceWalletOutlined,
        testId: 'dashboard-balance',
      },
      {
        label: 'dashboard.used',
        value: self && renderQuota(self.used_quota, display),
        icon: DataUsageOutlined,
        testId: 'dashboard-used',
      },
      {
        label: 'dashboard.requests',
        value: self && renderNumber(self.request_count),
        icon: SendOutlined,
        testId: 'dashboard-requests',
      },
    ];
  return (
    <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', sm: 'repeat(3, 1fr)' } }}>
      {stats.map(({ label, value, icon: Icon, testId }) => (
        <Card key={label}>
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
              }}
            >
              <Icon />
            </Box>
            <Box>
              <Typography variant="body2" color="text.secondary">
                {t(label)}
              </Typography>
              <Typography variant="h5" sx={{ fontWeight: 700 }} data-testid={testId}>
                {value ?? <Skeleton width={80} />}
              </Typography>
            </Box>
          </CardContent>
        </Card>
      ))}
    </Box>
  );
}
