import CloudDownloadOutlined from '@mui/icons-material/CloudDownloadOutlined';
import Alert from '@mui/material/Alert';
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
import { CONNECTION_FIELDS, PreCost, type ProviderField } from '@switchyard/domain';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageKey } from '../../i18n/message-key';
import { toast } from '../../lib/toast';
import type { FieldErrors } from '../admin/field-errors';
import {
  CHANNEL_PATH,
  fetchChannel,
  providerModels,
  saveChannel,
  TAG_PATH,
  useGroupSymbols,
  useModelCatalog,
  usePricedModels,
} from './api';
import {
  addModels,
  type ChannelForm,
  channelBody,
  emptyChannelForm,
  formFromChannel,
  providerOf,
  selectableProviders,
  unpricedModels,
} from './channel-form';
import { KeyValueRows } from './key-value-rows';

const PROXY_EXAMPLE = 'socks5://127.0.0.1:1080';

const PRE_COSTS = [
  { value: PreCost.All, label: 'admin.channel.preCost.all' },
  { value: PreCost.NoImages, label: 'admin.channel.preCost.noImages' },
  { value: PreCost.None, label: 'admin.channel.preCost.none' },
] as const;

/** Create (no channel) or edit a channel; the fields come from the provider catalog. */
export function ChannelEditDialog(props: { open: boolean; channelId: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [form, setForm] = useState<ChannelForm>(emptyChannelForm());
  const [errors, setErrors] = useState<FieldErrors>({});
  const [fetching, setFetching] = useState(false);
  const groups = useGroupSymbols();
  const catalog = useModelCatalog();
  const priced = usePricedModels();
  const unpriced = priced ? unpricedModels(form.models, priced) : [];
  const editing = props.channelId !== null;

  useEffect(() => {
    if (!props.open) return;
    setErrors({});
    if (props.channelId === null) {
      setForm(emptyChannelForm());
      return;
    }
    let live = true;
    fetchChannel(props.channelId)
      .then((c) => live && setForm(formFromChannel(c)))
      .catch(() => live && props.onClose());
    return () => {
      live = false;
    };
  }, [props.open, props.channelId, props.onClose]);

  const provider = providerOf(form.type);
  const set = <K extends keyof ChannelForm>(key: K, value: ChannelForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => saveChannel(body, editing),
    onSuccess: async () => {
      toast.success(t(editing ? 'admin.common.saved' : 'admin.common.created'));
      await client.invalidateQueries({ queryKey: [CHANNEL_PATH] });
      await client.invalidateQueries({ queryKey: [`${TAG_PATH}/_all`] });
      props.onClose();
    },
  });

  const submit = () => {
    const result = channelBody(form, props.channelId ?? undefined);
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    save.mutate(result.body);
  };

  const fetchModels = async () => {
    setFetching(true);
    try {
      const models = await providerModels({
        ...(props.channelId !== null ? { id: props.channelId } : {}),
        type: form.type,
        key: form.key,
        base_url: form.base_url,
        other: form.other,
      });
      set('models', addModels(form.models, models));
      toast.success(t('admin.channel.fetchedModels', { count: models.length }));
    } catch {
      toast.error(t('admin.channel.error.fetchModels'));
    } finally {
      setFetching(false);
    }
  };

  const pluginField = (field: ProviderField) => {
    const value = form.plugin[field.key];
    const label = t(`admin.${field.labelKey}` as MessageKey);
    const setPlugin = (v: string | boolean) => set('plugin', { ...form.plugin, [field.key]: v });
    const error = errors[`plugin.${field.key}`];
    if (field.kind === 'bool')
      return (
        <FormControlLabel
          key={field.key}
          control={<Switch checked={value === true} onChange={(e) => setPlugin(e.target.checked)} />}
          label={label}
        />
      );
    return (
      <TextField
        key={field.key}
        label={label}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => setPlugin(e.target.value)}
        placeholder={field.placeholder}
        select={field.kind === 'select'}
        multiline={field.kind === 'text' || field.kind === 'json'}
        minRows={field.kind === 'json' ? 3 : undefined}
        required={field.required}
        error={Boolean(error)}
        helperText={error}
        fullWidth
      >
        {field.options?.map((option) => (
          <MenuItem key={option} value={option}>
            {option}
          </MenuItem>
        ))}
      </TextField>
    );
  };

  return (
    <Dialog open={props.open} onClose={props.onClose} maxWidth="md" fullWidth>
      <DialogTitle>{t(editing ? 'admin.channel.editTitle' : 'admin.channel.createTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }} data-testid="channel-form">
          <TextField
            select
            label={t('admin.channel.field.type')}
            value={form.type}
            onChange={(e) => {
              const type = Number(e.target.value);
              setForm((f) => ({ ...f, type, other: providerOf(type)?.otherDefault ?? '', plugin: {} }));
            }}
            error={Boolean(errors.type)}
            helperText={errors.type}
            slotProps={{ select: { MenuProps: { slotProps: { paper: { sx: { maxHeight: 400 } } } } } }}
          >
            {selectableProviders().map((p) => (
              <MenuItem key={p.id} value={p.id}>
                {p.name}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            label={t('admin.channel.field.name')}
            value={form.name}
            onChange={(e) => set('name', e.target.value)}
            required
            error={Boolean(errors.name)}
            helperText={errors.name}
          />
          <TextField
            label={t('admin.channel.field.key')}
            value={form.key}
            onChange={(e) => set('key', e.target.value)}
            required={!editing}
            multiline
            minRows={2}
            error={Boolean(errors.key)}
            helperText={
              errors.key ??
              (editing
                ? t('admin.channel.keyKeep')
                : t('admin.channel.keyHint', { format: provider?.keyHint ?? '' }))
            }
          />
          <TextField
            label={t('admin.channel.field.baseUrl')}
            value={form.base_url}
            onChange={(e) => set('base_url', e.target.value)}
            required={provider?.baseUrlRequired}
            placeholder={provider?.defaultBaseUrl}
            error={Boolean(errors.base_url)}
            helperText={errors.base_url ?? t('admin.channel.baseUrlHint')}
          />
          {provider?.otherLabelKey && (
            <TextField
              label={t(`admin.${provider.otherLabelKey}` as MessageKey)}
              value={form.other}
              onChange={(e) => set('other', e.target.value)}
              error={Boolean(errors.other)}
              helperText={errors.other}
            />
          )}
          <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
            <Autocomplete
              multiple
              freeSolo
              fullWidth
              options={catalog.map((c) => c.model)}
              groupBy={(model) => catalog.find((c) => c.model === model)?.owner ?? ''}
              filterSelectedOptions
              value={form.models}
              onChange={(_, value) => set('models', addModels([], value))}
              renderValue={(value, getItemProps) =>
                value.map((option, index) => {
                  const { key, ...rest } = getItemProps({ index });
                  const color = unpriced.includes(option) ? 'warning' : 'default';
                  return <Chip key={key} size="small" color={color} label={option} {...rest} />;
                })
              }
              renderInput={(params) => (
                <TextField
                  {...params}
                  label={t('admin.channel.field.models')}
                  required
                  error={Boolean(errors.models)}
                  helperText={errors.models ?? t('admin.channel.modelsHint')}
                />
              )}
            />
            {provider?.supportsModelList && (
              <Button
                variant="outlined"
                onClick={fetchModels}
                disabled={fetching}
                startIcon={<CloudDownloadOutlined />}
                sx={{ whiteSpace: 'nowrap', mt: 1, flexShrink: 0 }}
              >
                {t('admin.channel.fetchModels')}
              </Button>
            )}
          </Stack>
          {unpriced.length > 0 && (
            <Alert severity="warning" data-testid="unpriced-models">
              {t('admin.channel.unpricedModels', { models: unpriced.join(', ') })}
            </Alert>
          )}
          <Autocomplete
            multiple
            options={groups.data ?? []}
            value={form.group}
            onChange={(_, value) => set('group', value)}
            renderInput={(params) => (
              <TextField
                {...params}
                label={t('admin.channel.field.group')}
                required
                error={Boolean(errors.group)}
                helperText={errors.group}
              />
            )}
          />
          <KeyValueRows
            testId="model-mapping"
            label={t('admin.channel.field.modelMapping')}
            keyLabel={t('admin.channel.mappingFrom')}
            valueLabel={t('admin.channel.mappingTo')}
            rows={form.mapping}
            onChange={(rows) => set('mapping', rows)}
            error={errors.model_mapping}
            helper={t('admin.channel.mappingHint')}
          />
          <KeyValueRows
            testId="model-headers"
            label={t('admin.channel.field.headers')}
            keyLabel={t('admin.channel.headerName')}
            valueLabel={t('admin.channel.headerValue')}
            rows={form.headers}
            onChange={(rows) => set('headers', rows)}
            error={errors.model_headers}
          />
          <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
            <TextField
              type="number"
              label={t('admin.channel.field.priority')}
              value={form.priority}
              onChange={(e) => set('priority', e.target.value)}
              error={Boolean(errors.priority)}
              helperText={errors.priority ?? t('admin.channel.priorityHint')}
            />
            <TextField
              type="number"
              label={t('admin.channel.field.weight')}
              value={form.weight}
              onChange={(e) => set('weight', e.target.value)}
              error={Boolean(errors.weight)}
              helperText={errors.weight ?? t('admin.channel.weightHint')}
            />
            <Autocomplete
              freeSolo
              options={form.models.filter((m) => !m.endsWith('*'))}
              value={form.test_model}
              onInputChange={(_, value) => set('test_model', value)}
              renderInput={(params) => (
                <TextField
                  {...params}
                  label={t('admin.channel.field.testModel')}
                  error={Boolean(errors.test_model)}
                  helperText={errors.test_model}
                />
              )}
            />
            <TextField
              label={t('admin.channel.field.proxy')}
              value={form.proxy}
              onChange={(e) => set('proxy', e.target.value)}
              placeholder={PROXY_EXAMPLE}
              error={Boolean(errors.proxy)}
              helperText={errors.proxy}
            />
            <TextField
              label={t('admin.channel.field.tag')}
              value={form.tag}
              onChange={(e) => set('tag', e.target.value)}
              error={Boolean(errors.tag)}
              helperText={errors.tag ?? t('admin.channel.tagHint')}
            />
            <TextField
              select
              label={t('admin.channel.field.preCost')}
              value={form.pre_cost}
              onChange={(e) => set('pre_cost', Number(e.target.value))}
            >
              {PRE_COSTS.map((p) => (
                <MenuItem key={p.value} value={p.value}>
                  {t(p.label)}
                </MenuItem>
              ))}
            </TextField>
          </Box>
          <FormControlLabel
            control={<Switch checked={form.only_chat} onChange={(e) => set('only_chat', e.target.checked)} />}
            label={t('admin.channel.field.onlyChat')}
          />
          {provider && provider.fields.length > 0 && (
            <Stack spacing={2} data-testid="provider-fields">
              {provider.fields.map(pluginField)}
            </Stack>
          )}
          <Stack spacing={2} data-testid="connection-fields">
            {CONNECTION_FIELDS.map(pluginField)}
          </Stack>
          {errors._ && <Box sx={{ color: 'error.main' }}>{errors._}</Box>}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={submit} disabled={save.isPending}>
          {t('common.submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
