import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import InputAdornment from '@mui/material/InputAdornment';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import { type CreatedTokenView, TOKEN_NAME_MAX, type TokenView } from '@switchyard/domain';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageKey } from '../../i18n/message-key';
import { useSiteInfo } from '../../lib/site-info';
import { type UserGroupSummary, useUserGroupMap } from '../site/api';
import { createToken, updateToken } from './api';
import {
  emptyTokenForm,
  type TokenFormErrors,
  type TokenFormValues,
  tokenBody,
  tokenFormErrors,
  tokenFormOf,
} from './token-form';

const ERROR_TEXT: Record<NonNullable<TokenFormErrors[keyof TokenFormErrors]>, MessageKey> = {
  required: 'validation.required',
  tooLong: 'user.token.nameTooLong',
  invalid: 'user.token.invalidValue',
  past: 'user.token.expiryPast',
  negative: 'user.token.quotaNegative',
};

/** Create or edit a token; `token` null means a new one. */
export function TokenDialog({
  token,
  onClose,
  onSaved,
}: {
  token: TokenView | null;
  onClose: () => void;
  onSaved: (created?: CreatedTokenView) => void;
}) {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const units = { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency };
  const { data: groups } = useUserGroupMap();
  const [values, setValues] = useState<TokenFormValues>(() =>
    token ? tokenFormOf(token, units) : emptyTokenForm(new Date(), units),
  );
  const [submitted, setSubmitted] = useState(false);
  const errors = tokenFormErrors(values, new Date());
  const shown = submitted ? errors : {};
  const set = <K extends keyof TokenFormValues>(key: K, value: TokenFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));
  const errorText = (key: keyof TokenFormValues) => {
    const e = shown[key];
    return e ? t(ERROR_TEXT[e], { max: TOKEN_NAME_MAX }) : undefined;
  };

  const save = useMutation({
    mutationFn: async () => {
      const body = tokenBody(values, units);
      if (token) {
        await updateToken(token.id, body);
        return undefined;
      }
      return createToken(body);
    },
    onSuccess: (created) => onSaved(created),
  });
  const submit = () => {
    setSubmitted(true);
    if (Object.keys(errors).length === 0) save.mutate();
  };
  const groupList = Object.values(groups ?? {}) as UserGroupSummary[];

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t(token ? 'user.token.editTitle' : 'user.token.createTitle')}</DialogTitle>
      <DialogContent>
        <Stack
          spacing={2}
          sx={{ pt: 1 }}
          component="form"
          id="token-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <TextField
            label={t('user.token.name')}
            value={values.name}
            onChange={(e) => set('name', e.target.value)}
            error={!!shown.name}
            helperText={errorText('name')}
            autoFocus
            slotProps={{ htmlInput: { 'data-testid': 'token-name' } }}
          />
          <FormControl fullWidth>
            <InputLabel id="token-group">{t('user.token.group')}</InputLabel>
            <Select
              labelId="token-group"
              label={t('user.token.group')}
              value={values.group}
              onChange={(e) => set('group', e.target.value)}
            >
              <MenuItem value="">{t('user.token.groupDefault')}</MenuItem>
              {groupList.map((g) => (
                <MenuItem key={g.symbol} value={g.symbol}>
                  {t('user.price.groupOption', { name: g.name || g.symbol, ratio: g.ratio })}
                </MenuItem>
              ))}
            </Select>
          </FormControl>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
            <TextField
              type="datetime-local"
              label={t('user.token.expiresAt')}
              value={values.expiresAt}
              disabled={values.neverExpires}
              onChange={(e) => set('expiresAt', e.target.value)}
              error={!!shown.expiresAt}
              helperText={errorText('expiresAt')}
              sx={{ flex: 1 }}
              slotProps={{ inputLabel: { shrink: true } }}
            />
            <FormControlLabel
              control={
                <Switch
                  checked={values.neverExpires}
                  onChange={(e) => set('neverExpires', e.target.checked)}
                  data-testid="token-never-expires"
                />
              }
              label={t('user.token.neverExpires')}
            />
          </Stack>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
            <TextField
              label={t('user.token.quota')}
              value={values.quota}
              disabled={values.unlimited}
              onChange={(e) => set('quota', e.target.value)}
              error={!!shown.quota}
              helperText={
                errorText('quota') ??
                (units.displayInCurrency ? t('user.token.quotaCurrencyHint') : undefined)
              }
              sx={{ flex: 1 }}
              slotProps={{
                htmlInput: { inputMode: 'decimal', 'data-testid': 'token-quota' },
                input: units.displayInCurrency
                  ? { startAdornment: <InputAdornment position="start">$</InputAdornment> }
                  : {},
              }}
            />
            <FormControlLabel
              control={
                <Switch
                  checked={values.unlimited}
                  onChange={(e) => set('unlimited', e.target.checked)}
                  data-testid="token-unlimited"
                />
              }
              label={t('user.token.unlimited')}
            />
          </Stack>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('user.common.cancel')}</Button>
        <Button
          type="submit"
          form="token-form"
          variant="contained"
          disabled={save.isPending}
          data-testid="token-submit"
        >
          {t('user.common.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
