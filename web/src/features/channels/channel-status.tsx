import Chip from '@mui/material/Chip';
import { ChannelStatus } from '@switchyard/domain';
import { useTranslation } from 'react-i18next';

/** Channel states: enabled, disabled by hand, disabled automatically (by a test or failures). */
export function ChannelStatusChip({ status }: { status: number }) {
  const { t } = useTranslation();
  if (status === ChannelStatus.Enabled)
    return <Chip size="small" color="success" variant="outlined" label={t('admin.channel.status.enabled')} />;
  if (status === ChannelStatus.AutoDisabled)
    return (
      <Chip size="small" color="warning" variant="outlined" label={t('admin.channel.status.autoDisabled')} />
    );
  if (status === ChannelStatus.ManuallyDisabled)
    return (
      <Chip size="small" color="default" variant="outlined" label={t('admin.channel.status.disabled')} />
    );
  return <Chip size="small" label={t('admin.channel.status.unknown')} />;
}
