import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { BalanceUpdateReport } from '@switchyard/domain';
import { useTranslation } from 'react-i18next';
import { i18n } from '../../i18n';
import { toast } from '../../lib/toast';

const REASONS = ['upstream_error', 'invalid_request', 'internal_error'] as const;

/**
 * Tells the administrator what "Update balances" did: a success toast only when every query worked,
 * otherwise the list of channels that failed and why (the provider's own words under the reason).
 * Returns whether the report needs the dialog.
 */
export function announceBalanceReport(report: BalanceUpdateReport): boolean {
  if (report.results.length === 0) {
    toast.info(i18n.t('admin.channel.balanceReport.none'));
    return false;
  }
  if (report.failed === 0) {
    toast.success(i18n.t('admin.channel.balanceReport.allDone', { count: report.updated }));
    return report.disabled > 0;
  }
  toast.warning(i18n.t('admin.channel.balanceReport.someFailed', { failed: report.failed }));
  return true;
}

export function BalanceReportDialog({
  report,
  onClose,
}: {
  report: BalanceUpdateReport | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const failures = (report?.results ?? []).flatMap((r) => ('error' in r ? [r] : []));
  return (
    <Dialog open={report !== null} onClose={onClose} fullWidth maxWidth="sm" data-testid="balance-report">
      <DialogTitle>{t('admin.channel.balanceReport.title')}</DialogTitle>
      {report && (
        <DialogContent>
          <Typography sx={{ mb: 1 }} data-testid="balance-report-summary">
            {t('admin.channel.balanceReport.summary', { updated: report.updated, failed: report.failed })}
          </Typography>
          {report.disabled > 0 && (
            <Alert severity="warning" sx={{ mb: 1 }}>
              {t('admin.channel.balanceReport.disabled', { count: report.disabled })}
            </Alert>
          )}
          {failures.length > 0 && (
            <Table size="small">
              <TableHead>
                <TableRow>
                  <TableCell>{t('admin.channel.balanceReport.channel')}</TableCell>
                  <TableCell>{t('admin.channel.balanceReport.result')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {failures.map((f) => (
                  <TableRow key={f.id} data-testid={`balance-failure-${f.id}`}>
                    <TableCell sx={{ verticalAlign: 'top' }}>
                      #{f.id} {f.name}
                    </TableCell>
                    <TableCell>
                      <Typography variant="body2">
                        {(REASONS as readonly string[]).includes(f.code)
                          ? t(`admin.channel.balanceReport.reason.${f.code as (typeof REASONS)[number]}`)
                          : f.error}
                      </Typography>
                      <Typography variant="caption" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                        {f.error}
                      </Typography>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
        </DialogContent>
      )}
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
