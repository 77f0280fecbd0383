import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import { PriceType, type PriceView, priceFields, priceInput } from '@switchyard/domain';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from '../../lib/toast';
import { checkForm, type FieldErrors } from '../admin/field-errors';
import { num } from '../admin/form-dialog';
import { addModels, modelsProblem } from '../channels/channel-form';
import { useModelOwners } from '../site/api';
import { PRICES_PATH, savePrice, savePrices } from './api';

export interface PriceEdit {
  /** single: one model (renamable); batch: the models sharing one price. */
  mode: 'single' | 'batch';
  /** The price being changed, or null to create. */
  original: PriceView | null;
  models: string[];
}

const text = (n: number | undefined) => (n === undefined ? '' : String(n));

/** One price, or one price shared by many models. */
export function PriceDialog(props: { edit: PriceEdit | null; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const owners = useModelOwners();
  const edit = props.edit;
  const [form, setForm] = useState({
    model: '',
    models: [] as string[],
    channel_type: '1',
    type: PriceType.Tokens as string,
    input: '',
    output: '',
    audio_in: '',
    audio_out: '',
    locked: false,
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!edit) return;
    const p = edit.original;
    setErrors({});
    setForm({
      model: edit.models[0] ?? '',
      models: edit.models,
      channel_type: String(p?.channel_type ?? 1),
      type: p?.type ?? PriceType.Tokens,
      input: text(p?.input),
      output: text(p?.output),
      audio_in: text(p?.extra_ratios.input_audio_tokens),
      audio_out: text(p?.extra_ratios.output_audio_tokens),
      locked: p?.locked ?? false,
    });
  }, [edit]);
  const set = <K extends keyof typeof form>(key: K, value: (typeof form)[K]) =>
    setForm((f) => ({ ...f, [key]: value }));

  const submit = async () => {
    if (!edit) return;
    const extra: Record<string, number | undefined> = { ...edit.original?.extra_ratios };
    extra.input_audio_tokens = num(form.audio_in);
    extra.output_audio_tokens = num(form.audio_out);
    const extra_ratios = Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined));
    const price = {
      type: form.type,
      channel_type: num(form.channel_type),
      input: num(form.input),
      output: num(form.output),
      locked: form.locked,
      extra_ratios,
    };
    const own: FieldErrors = {};
    if (edit.mode === 'batch') {
      const problem = modelsProblem(form.models);
      if (problem) own.models = problem;
    }
    const checked =
      edit.mode === 'single'
        ? checkForm(priceInput, { ...price, model: form.model })
        : checkForm(priceFields, price);
    const fieldErrors = { ...own, ...(checked.ok ? {} : checked.errors) };
    for (const [from, to] of [['extra_ratios', 'audio_in']] as const) {
      if (fieldErrors[from]) fieldErrors[to] = fieldErrors[from] as string;
    }
    if (Object.keys(fieldErrors).length > 0 || !checked.ok) {
      setErrors(fieldErrors);
      return;
    }
    setBusy(true);
    try {
      if (edit.mode === 'single') {
        await savePrice(checked.data, edit.original?.model);
      } else {
        await savePrices({
          original_models: edit.original ? edit.models : [],
          models: form.models,
          price: checked.data,
        });
      }
      toast.success(t('admin.common.saved'));
      await client.invalidateQueries({ queryKey: [PRICES_PATH] });
      props.onClose();
    } catch {
      // The api client has said why.
    } finally {
      setBusy(false);
    }
  };

  const number = (key: 'input' | 'output' | 'audio_in' | 'audio_out', label: string, helper?: string) => (
    <TextField
      type="number"
      label={label}
      value={form[key]}
      onChange={(e) => set(key, e.target.value)}
      required={key === 'input' || key === 'output'}
      error={Boolean(errors[key])}
      helperText={errors[key] ?? helper}
      slotProps={{ htmlInput: { min: 0, step: 'any', 'data-testid': `price-${key}` } }}
    />
  );

  return (
    <Dialog open={edit !== null} onClose={props.onClose} maxWidth="sm" fullWidth>
      <DialogTitle>
        {t(
          edit?.mode === 'batch'
            ? 'admin.pricing.batchTitle'
            : edit?.original
              ? 'admin.pricing.editTitle'
              : 'admin.pricing.createTitle',
        )}
      </DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {edit?.mode === 'batch' ? (
            <Autocomplete
              multiple
              freeSolo
              options={[]}
              value={form.models}
              onChange={(_, value) => set('models', addModels([], value))}
              renderValue={(value, getItemProps) =>
                value.map((option, index) => {
                  const { key, ...rest } = getItemProps({ index });
                  return <Chip key={key} size="small" label={option} {...rest} />;
                })
              }
              renderInput={(params) => (
                <TextField
                  {...params}
                  label={t('admin.pricing.field.models')}
                  required
                  error={Boolean(errors.models)}
                  helperText={errors.models ?? t('admin.pricing.modelHint')}
                />
              )}
            />
          ) : (
            <TextField
              label={t('admin.pricing.field.model')}
              value={form.model}
              onChange={(e) => set('model', e.target.value)}
              required
              error={Boolean(errors.model)}
              helperText={errors.model ?? t('admin.pricing.modelHint')}
              slotProps={{ htmlInput: { 'data-testid': 'price-model' } }}
            />
          )}
          <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
            <TextField
              select
              label={t('admin.pricing.field.owner')}
              value={form.channel_type}
              onChange={(e) => set('channel_type', e.target.value)}
              required
              error={Boolean(errors.channel_type)}
              helperText={errors.channel_type}
            >
              {(owners.data ?? []).map((o) => (
                <MenuItem key={o.id} value={String(o.id)}>
                  {o.name}
                </MenuItem>
              ))}
            </TextField>
            <TextField
              select
              label={t('admin.pricing.field.type')}
              value={form.type}
              onChange={(e) => set('type', e.target.value)}
              required
            >
              <MenuItem value={PriceType.Tokens}>{t('admin.pricing.type.tokens')}</MenuItem>
              <MenuItem value={PriceType.Times}>{t('admin.pricing.type.times')}</MenuItem>
            </TextField>
            {number('input', t('admin.pricing.field.input'), t('admin.pricing.ratioHint'))}
            {number('output', t('admin.pricing.field.output'), t('admin.pricing.ratioHint'))}
            {number('audio_in', t('admin.pricing.field.audioInput'), t('admin.pricing.audioHint'))}
            {number('audio_out', t('admin.pricing.field.audioOutput'), t('admin.pricing.audioHint'))}
          </Box>
          <FormControlLabel
            control={<Switch checked={form.locked} onChange={(e) => set('locked', e.target.checked)} />}
            label={t('admin.pricing.field.locked')}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={submit} disabled={busy} data-testid="price-submit">
          {t('common.submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
