import Alert from '@mui/material/Alert';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { ChannelStatus, type ChannelView } from '@switchyard/domain';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from '../../lib/toast';
import { allChannels, testChannel } from './api';
import { type TestProgress, testChannels } from './test-all';

/**
 * Testing one channel (its result as a toast) and every channel not disabled by hand (a progress
 * banner); `refresh` runs after each, since a test changes response times and may change statuses.
 */
export function useChannelTests(refresh: () => Promise<unknown>) {
  const { t } = useTranslation();
  const [progress, setProgress] = useState<TestProgress | null>(null);

  const testOne = async (channel: ChannelView, model?: string) => {
    if (!model && !channel.test_model) {
      toast.warning(t('admin.channel.error.testModelFirst'));
      return;
    }
    try {
      const { answer, message } = await testChannel(channel.id, model);
      if (answer.ok)
        toast.success(t('admin.channel.testPassed', { name: channel.name, time: answer.time.toFixed(2) }));
      else
        toast.error(
          t('admin.channel.testFailed', { name: channel.name, message: message || answer.message }),
        );
    } finally {
      await refresh();
    }
  };

  const testAll = async () => {
    const channels = (await allChannels()).filter((c) => c.status !== ChannelStatus.ManuallyDisabled);
    await testChannels(
      channels.map((c) => c.id),
      async (id) => {
        const channel = channels.find((c) => c.id === id);
        const { answer } = await testChannel(
          id,
          channel?.test_model || channel?.models.find((m) => !m.endsWith('*')),
        );
        return answer.ok;
      },
      setProgress,
    );
    await refresh();
  };

  const running = progress !== null && progress.done < progress.total;
  const banner = progress && (
    <Alert
      severity={running ? 'info' : progress.failed.length > 0 ? 'warning' : 'success'}
      onClose={running ? undefined : () => setProgress(null)}
      sx={{ mb: 2 }}
      data-testid="test-all-progress"
    >
      <Typography variant="body2">
        {t('admin.channel.testProgress', {
          done: progress.done,
          total: progress.total,
          failed: progress.failed.length,
        })}
      </Typography>
      <LinearProgress
        variant="determinate"
        value={progress.total === 0 ? 100 : (progress.done / progress.total) * 100}
        sx={{ mt: 1, width: 320 }}
      />
    </Alert>
  );
  return { testOne, testAll, running, banner };
}
