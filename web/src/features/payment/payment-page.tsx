import CreditCardOffOutlined from '@mui/icons-material/CreditCardOffOutlined';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../admin/page-header';

/**
 * /panel/payment (spec §2 "payment gateway list, payment settings and order log"). No payment gateway
 * exists in this build, so the screen says so instead of showing empty lists that cannot be filled.
 */
export default function PaymentPage() {
  const { t } = useTranslation();
  return (
    <>
      <PageHeader />
      <Card variant="outlined" data-testid="payment-none">
        <CardContent>
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
            <CreditCardOffOutlined color="disabled" fontSize="large" />
            <div>
              <Typography variant="h6">{t('admin.payment.none')}</Typography>
              <Typography color="text.secondary">{t('admin.payment.noneHint')}</Typography>
            </div>
          </Stack>
        </CardContent>
      </Card>
    </>
  );
}
