import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CardHeader from '@mui/material/CardHeader';
import { useTranslation } from 'react-i18next';
import { CopyField } from '../../components/copy-field';
import { useInviteLink } from './api';

/** The link a friend signs up with, to copy (the dashboard and the profile show it). */
export function InviteLinkCard({ testId }: { testId: string }) {
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
          testId={testId}
        />
      </CardContent>
    </Card>
  );
}
