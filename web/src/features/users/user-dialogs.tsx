import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import {
  ErrorCode,
  renderQuota,
  type UserAdminView,
  userCreateInput,
  userUpdateInput,
} from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, showErrorToast } from '../../lib/api-error';
import { useSiteInfo } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { checkForm, type FieldErrors } from '../admin/field-errors';
import { useGroupSymbols } from '../channels/api';
import { changeUserQuota, saveUser, USER_PATH } from './api';
import { type QuotaUnit, quotaChange } from './quota-change';

/** Create (no user) or edit a user: username, display name, password, group. */
export function UserEditDialog(props: { open: boolean; user: UserAdminView | null; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const groups = useGroupSymbols();
  const [form, setForm] = useState({
    username: '',
    display_name: '',
    password: '',
    email: '',
    group: 'default',
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!props.open) return;
    setErrors({});
    const u = props.user;
    setForm({
      username: u?.username ?? '',
      display_name: u?.display_name ?? '',
      password: '',
      email: u?.email ?? '',
      group: u?.group ?? 'default',
    });
  }, [props.open, props.user]);
  const set = (key: keyof typeof form, value: string) => setForm((f) => ({ ...f, [key]: value }));

  const submit = async () => {
    const checked = props.user
      ? checkForm(userUpdateInput, { ...form, id: props.user.id })
      : checkForm(userCreateInput, {
          username: form.username,
          password: form.password,
          display_name: form.display_name,
          group: form.group,
        });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setBusy(true);
    try {
      await saveUser(checked.data, props.user !== null);
      toast.success(t(props.user ? 'admin.common.saved' : 'admin.common.created'));
      await client.invalidateQueries({ queryKey: [USER_PATH] });
      props.onClose();
    } catch {
      // The api client has said what went wrong.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={props.open} onClose={props.onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t(props.user ? 'admin.user.editTitle' : 'admin.user.createTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField
            label={t('admin.user.field.username')}
            value={form.username}
            onChange={(e) => set('username', e.target.value)}
            required
            error={Boolean(errors.username)}
            helperText={errors.username}
          />
          <TextField
            label={t('admin.user.field.displayName')}
            value={form.display_name}
            onChange={(e) => set('display_name', e.target.value)}
            error={Boolean(errors.display_name)}
            helperText={errors.display_name}
          />
          <TextField
            type="password"
            label={t('admin.user.field.password')}
            value={form.password}
            onChange={(e) => set('password', e.target.value)}
            required={!props.user}
            autoComplete="new-password"
            error={Boolean(errors.password)}
            helperText={errors.password ?? (props.user ? t('admin.user.passwordKeep') : undefined)}
          />
          {props.user && (
            <TextField
              label={t('admin.user.field.email')}
              value={form.email}
              onChange={(e) => set('email', e.target.value)}
              error={Boolean(errors.email)}
              helperText={errors.email}
            />
          )}
          <TextField
            select
            label={t('admin.user.field.group')}
            value={form.group}
            onChange={(e) => set('group', e.target.value)}
            required
            error={Boolean(errors.group)}
            helperText={errors.group}
          >
            {[...new Set([form.group, ...(groups.data ?? [])])].map((g) => (
              <MenuItem key={g} value={g}>
                {g}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={submit} disabled={busy}>
          {t('common.submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** Adds or deducts quota with a remark; never more than the balance. */
export function UserQuotaDialog(props: { user: UserAdminView | null; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const site = useSiteInfo();
  const [unit, setUnit] = useState<QuotaUnit>(site.display_in_currency ? 'currency' : 'raw');
  const [amount, setAmount] = useState('');
  const [remark, setRemark] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (props.user) {
      setAmount('');
      setRemark('');
      setError(undefined);
    }
  }, [props.user]);
  const user = props.user;
  const display = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };

  const submit = async () => {
    if (!user) return;
    const change = quotaChange(amount, unit, site.quota_per_unit, user.quota);
    if (!change.ok) {
      setError(t(`admin.user.quotaProblem.${change.problem}`));
      return;
    }
    setBusy(true);
    try {
      await changeUserQuota(user.id, change.delta, remark.trim());
      toast.success(t('admin.user.quotaChanged'));
      await client.invalidateQueries({ queryKey: [USER_PATH] });
      props.onClose();
    } catch (e) {
      if (e instanceof ApiError && e.code === ErrorCode.insufficientQuota) {
        const text = t('admin.user.quotaProblem.overdraft');
        setError(text);
        toast.error(text);
      } else showErrorToast(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={user !== null} onClose={props.onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('admin.user.quotaTitle', { name: user?.username ?? '' })}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" data-testid="quota-balance">
            {t('admin.user.currentBalance', { value: user ? renderQuota(user.quota, display) : '' })}
          </Typography>
          <ToggleButtonGroup
            exclusive
            size="small"
            value={unit}
            onChange={(_, v: QuotaUnit | null) => v && setUnit(v)}
          >
            <ToggleButton value="currency">{t('admin.user.unitCurrency')}</ToggleButton>
            <ToggleButton value="raw">{t('admin.user.unitRaw')}</ToggleButton>
          </ToggleButtonGroup>
          <TextField
            type="number"
            label={t('admin.user.field.quotaChange')}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            required
            error={Boolean(error)}
            helperText={error ?? t('admin.user.quotaHint')}
            slotProps={{ htmlInput: { 'data-testid': 'quota-amount' } }}
          />
          <TextField
            label={t('admin.user.field.remark')}
            value={remark}
            onChange={(e) => setRemark(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 200 } }}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={submit} disabled={busy}>
          {t('common.submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
