import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { type OptionKey, type OptionSection, optionDefs } from '@switchyard/domain';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useConfirm } from '../../components/confirm-dialog';
import { PageHeader } from '../../components/list-screen';
import { MarkdownContent } from '../../components/markdown-content';
import type { MessageKey } from '../../i18n/message-key';
import { ApiError } from '../../lib/api-error';
import { statusQueryKey } from '../../lib/site-info';
import { toast } from '../../lib/toast';
import { clearOption, deleteLogsBefore, OPTION_PATH, saveOptions, useOptions } from './api';
import { type CardProblem, changedValues, checkCard, type OptionRow } from './settings-form';
import { PREVIEWED, SETTINGS_LAYOUT, type SettingsCard } from './settings-layout';

const TABS: readonly OptionSection[] = ['operation', 'system', 'other'];
const label = (key: string) => `admin.setting.key.${key}` as MessageKey;

function SettingsCardView(props: { card: SettingsCard; stored: OptionRow[] }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const { card, stored } = props;
  const initial = () =>
    Object.fromEntries(card.keys.map((k) => [k, stored.find((o) => o.key === k)?.value ?? ''])) as Record<
      string,
      string
    >;
  const [draft, setDraft] = useState<Record<string, string>>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [preview, setPreview] = useState(false);
  const [confirm, ask] = useConfirm();
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when the stored values change
  useEffect(() => setDraft(initial()), [stored]);

  const describe = (p: CardProblem) => {
    if (p.kind === 'json') return t('admin.validation.invalidJson');
    if (p.kind === 'value') return t('admin.setting.invalidValue', { reason: p.reason });
    return t('admin.setting.requires', {
      keys: p.missing.map((k) => t(label(k))).join(t('admin.setting.listSeparator')),
    });
  };

  const save = useMutation({
    mutationFn: saveOptions,
    onSuccess: async () => {
      toast.success(t('admin.common.saved'));
      await client.invalidateQueries({ queryKey: [OPTION_PATH] });
      await client.invalidateQueries({ queryKey: statusQueryKey });
    },
  });
  const clear = useMutation({
    mutationFn: clearOption,
    onSuccess: async () => {
      toast.success(t('admin.setting.cleared'));
      await client.invalidateQueries({ queryKey: [OPTION_PATH] });
    },
  });

  const submit = () => {
    const changes = changedValues(card.keys, draft, stored);
    if (Object.keys(changes).length === 0) {
      toast.info(t('admin.setting.nothingChanged'));
      return;
    }
    const problems = checkCard(changes, draft, stored);
    if (problems.length > 0) {
      setErrors(Object.fromEntries(problems.map((p) => [p.key, describe(p)])));
      return;
    }
    setErrors({});
    save.mutate(changes);
  };

  const field = (key: OptionKey) => {
    const def = optionDefs[key];
    const row = stored.find((o) => o.key === key);
    const value = draft[key] ?? '';
    const set = (v: string) => setDraft((d) => ({ ...d, [key]: v }));
    if (def.kind === 'bool')
      return (
        <FormControlLabel
          key={key}
          control={<Switch checked={value === 'true'} onChange={(e) => set(String(e.target.checked))} />}
          label={t(label(key))}
          data-testid={`option-${key}`}
        />
      );
    if (def.secret)
      return (
        <Stack key={key} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <TextField
            fullWidth
            type="password"
            autoComplete="new-password"
            label={t(label(key))}
            value={value}
            onChange={(e) => set(e.target.value)}
            placeholder={t(row?.set ? 'admin.setting.secretKeep' : 'admin.setting.secretEmpty')}
            error={Boolean(errors[key])}
            helperText={errors[key]}
            slotProps={{ htmlInput: { 'data-testid': `option-${key}` } }}
          />
          <Chip
            size="small"
            color={row?.set ? 'success' : 'default'}
            label={t(row?.set ? 'admin.setting.secretSet' : 'admin.setting.secretUnset')}
          />
          {row?.set && (
            <Button
              size="small"
              color="warning"
              onClick={async () => {
                if (await ask(t('admin.setting.confirmClear', { name: t(label(key)) }))) clear.mutate(key);
              }}
            >
              {t('admin.setting.clear')}
            </Button>
          )}
        </Stack>
      );
    const long = def.kind === 'text' || def.kind === 'json';
    return (
      <TextField
        key={key}
        fullWidth
        label={t(label(key))}
        value={value}
        onChange={(e) => set(e.target.value)}
        type={def.kind === 'int' || def.kind === 'float' ? 'number' : 'text'}
        multiline={long}
        minRows={long ? (PREVIEWED.has(key) ? 8 : 4) : undefined}
        maxRows={long ? 20 : undefined}
        error={Boolean(errors[key])}
        helperText={errors[key]}
        slotProps={{
          htmlInput: {
            'data-testid': `option-${key}`,
            step: def.kind === 'float' ? 'any' : undefined,
            style: def.kind === 'json' ? { fontFamily: 'monospace' } : undefined,
          },
        }}
      />
    );
  };

  const previewKey = card.keys.find((k) => PREVIEWED.has(k));
  return (
    <Card variant="outlined" data-testid={`settings-card-${card.id}`}>
      {confirm}
      <CardContent>
        <Typography variant="h6" gutterBottom>
          {t(`admin.setting.card.${card.id}` as MessageKey)}
        </Typography>
        <Stack spacing={2}>
          {card.keys.map(field)}
          {previewKey && preview && (
            <Paper variant="outlined" sx={{ p: 2 }} data-testid={`preview-${previewKey}`}>
              <MarkdownContent text={draft[previewKey] ?? ''} html={previewKey === 'Footer'} />
            </Paper>
          )}
        </Stack>
      </CardContent>
      <CardActions sx={{ px: 2, pb: 2 }}>
        <Button
          variant="contained"
          onClick={submit}
          disabled={save.isPending}
          data-testid={`save-${card.id}`}
        >
          {t('admin.common.save')}
        </Button>
        {previewKey && (
          <Button onClick={() => setPreview((p) => !p)}>
            {t(preview ? 'admin.setting.hidePreview' : 'admin.common.preview')}
          </Button>
        )}
      </CardActions>
    </Card>
  );
}

/** Log cleanup before a date: deletes log rows older than the chosen day. */
function LogCleanup() {
  const { t } = useTranslation();
  const [date, setDate] = useState('');
  const [confirm, ask] = useConfirm();
  const cleanup = useMutation({
    mutationFn: deleteLogsBefore,
    onSuccess: (count) => toast.success(t('admin.setting.logsDeleted', { count })),
  });
  const run = async () => {
    const ms = Date.parse(`${date}T00:00:00`);
    if (!date || Number.isNaN(ms)) {
      toast.error(t('admin.setting.invalidDate'));
      return;
    }
    if (await ask(t('admin.setting.confirmCleanup', { date }))) cleanup.mutate(Math.floor(ms / 1000));
  };
  return (
    <Card variant="outlined">
      {confirm}
      <CardContent>
        <Typography variant="h6" gutterBottom>
          {t('admin.setting.card.logs')}
        </Typography>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <TextField
            type="date"
            label={t('admin.setting.cleanupBefore')}
            value={date}
            onChange={(e) => setDate(e.target.value)}
            slotProps={{ inputLabel: { shrink: true } }}
          />
          <Button variant="outlined" color="warning" onClick={run} disabled={cleanup.isPending}>
            {t('admin.setting.cleanup')}
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}

export default function SettingsPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab = TABS.find((s) => s === params.get('tab')) ?? 'operation';
  const options = useOptions();
  const forbidden = options.error instanceof ApiError && options.error.status === 403;
  return (
    <>
      <PageHeader />
      <Tabs value={tab} onChange={(_, v: string) => setParams({ tab: v })} sx={{ mb: 2 }}>
        {TABS.map((s) => (
          <Tab key={s} value={s} label={t(`admin.setting.tab.${s}`)} data-testid={`settings-tab-${s}`} />
        ))}
      </Tabs>
      {forbidden && <Alert severity="warning">{t('admin.setting.rootOnly')}</Alert>}
      {options.isError && !forbidden && <Alert severity="error">{t('table.error')}</Alert>}
      {options.data && (
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' },
            alignItems: 'start',
          }}
        >
          {SETTINGS_LAYOUT[tab].map((card) => (
            <SettingsCardView key={card.id} card={card} stored={options.data} />
          ))}
          {tab === 'operation' && <LogCleanup />}
        </Box>
      )}
    </>
  );
}
