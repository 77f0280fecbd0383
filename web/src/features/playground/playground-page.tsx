import DeleteSweepOutlined from '@mui/icons-material/DeleteSweepOutlined';
import Send from '@mui/icons-material/Send';
import StopCircleOutlined from '@mui/icons-material/StopCircleOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Select from '@mui/material/Select';
import Slider from '@mui/material/Slider';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { PLAYGROUND_TOKEN_NAME, splitList, TokenStatus } from '@switchyard/domain';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';
import { useSession } from '../../app/session-context';
import { fillChatLink, serverAddress, visibleChatLinks } from '../../lib/chat-links';
import { useQuotaFormat } from '../../lib/quota-format';
import { useSiteInfo } from '../../lib/site-info';
import { useSelf } from '../account/api';
import { useAvailableModels } from '../model-price/api';
import { loggedQuota, usePlaygroundKey, useTokenChoices } from './api';
import { type ChatMessage, type ChatUsage, streamChat } from './chat-stream';

const PLAYGROUND_TOKEN = PLAYGROUND_TOKEN_NAME;
/** OpenAI accepts at most four stop sequences. */
const MAX_STOP = 4;

interface Turn extends ChatMessage {
  usage?: ChatUsage | null;
  /** Quota the gateway logged for the reply; undefined while unknown. */
  quota?: number;
  error?: string;
}

function NativeChat({ playgroundKey, tokenName }: { playgroundKey: string; tokenName: string }) {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormat();
  const { data: self } = useSelf();
  const { data: models } = useAvailableModels();
  const modelNames = useMemo(
    () =>
      Object.entries(models ?? {})
        .filter(([, m]) => !self || m.groups.includes(self.group))
        .map(([name]) => name),
    [models, self],
  );
  const [model, setModel] = useState('');
  const [system, setSystem] = useState('');
  const [temperature, setTemperature] = useState(0.7);
  const [stop, setStop] = useState('');
  const [input, setInput] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [abort, setAbort] = useState<AbortController | null>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const chosen = modelNames.includes(model) ? model : (modelNames[0] ?? '');
  const stopList = splitList(stop);
  const stopTooMany = stopList.length > MAX_STOP;

  // Follows the reply as it streams in.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every change of the turns on purpose
  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [turns]);

  const send = async () => {
    const text = input.trim();
    if (!text || !chosen || abort || stopTooMany) return;
    const history: ChatMessage[] = [
      ...(system.trim() ? [{ role: 'system' as const, content: system.trim() }] : []),
      ...turns.filter((m) => !m.error).map(({ role, content }) => ({ role, content })),
      { role: 'user', content: text },
    ];
    const controller = new AbortController();
    setAbort(controller);
    setInput('');
    setTurns((prev) => [...prev, { role: 'user', content: text }, { role: 'assistant', content: '' }]);
    const patchLast = (patch: (last: Turn) => Turn) =>
      setTurns((prev) => [...prev.slice(0, -1), patch(prev[prev.length - 1] as Turn)]);
    const since = Math.floor(Date.now() / 1000) - 1;
    try {
      const usage = await streamChat(
        playgroundKey,
        { model: chosen, messages: history, temperature, ...(stopList.length ? { stop: stopList } : {}) },
        (delta) => patchLast((last) => ({ ...last, content: last.content + delta })),
        controller.signal,
      );
      patchLast((last) => ({ ...last, usage }));
      const quota = await loggedQuota(tokenName, chosen, since);
      patchLast((last) => ({ ...last, ...(quota !== undefined ? { quota } : {}) }));
    } catch (error) {
      const aborted = error instanceof DOMException && error.name === 'AbortError';
      patchLast((last) => ({
        ...last,
        error: aborted
          ? t('user.playground.stopped')
          : error instanceof Error
            ? error.message
            : String(error),
      }));
    } finally {
      setAbort(null);
    }
  };

  return (
    <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '280px 1fr' } }}>
      <Stack spacing={2}>
        <FormControl size="small" fullWidth>
          <InputLabel id="playground-model">{t('user.playground.model')}</InputLabel>
          <Select
            labelId="playground-model"
            label={t('user.playground.model')}
            value={chosen}
            onChange={(e) => setModel(e.target.value)}
            data-testid="playground-model"
          >
            {modelNames.map((name) => (
              <MenuItem key={name} value={name}>
                {name}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        <TextField
          label={t('user.playground.system')}
          value={system}
          onChange={(e) => setSystem(e.target.value)}
          multiline
          minRows={3}
          size="small"
          slotProps={{ htmlInput: { 'data-testid': 'playground-system' } }}
        />
        <Box>
          <Typography variant="body2" gutterBottom>
            {t('user.playground.temperature', { value: temperature })}
          </Typography>
          <Slider
            value={temperature}
            min={0}
            max={2}
            step={0.1}
            onChange={(_, v) => setTemperature(v as number)}
            aria-label={t('user.playground.temperatureLabel')}
          />
        </Box>
        <TextField
          label={t('user.playground.stop')}
          value={stop}
          onChange={(e) => setStop(e.target.value)}
          size="small"
          error={stopTooMany}
          helperText={
            stopTooMany ? t('user.playground.stopTooMany', { max: MAX_STOP }) : t('user.playground.stopHint')
          }
        />
        <Button
          variant="outlined"
          startIcon={<DeleteSweepOutlined />}
          disabled={abort !== null || turns.length === 0}
          onClick={() => setTurns([])}
        >
          {t('user.playground.clear')}
        </Button>
      </Stack>
      <Stack spacing={2} sx={{ minWidth: 0 }}>
        <Paper
          variant="outlined"
          sx={{
            p: 2,
            minHeight: 360,
            maxHeight: '60vh',
            overflow: 'auto',
            display: 'grid',
            gap: 1.5,
            alignContent: 'start',
          }}
          data-testid="playground-messages"
        >
          {turns.length === 0 && (
            <Typography color="text.secondary" sx={{ textAlign: 'center', py: 8 }}>
              {modelNames.length === 0 && models ? t('user.playground.noModels') : t('user.playground.empty')}
            </Typography>
          )}
          {turns.map((turn, i) => (
            <Box
              // biome-ignore lint/suspicious/noArrayIndexKey: turns are only appended, never reordered
              key={i}
              data-testid={`playground-turn-${turn.role}`}
              sx={{
                justifySelf: turn.role === 'user' ? 'end' : 'start',
                maxWidth: '85%',
                px: 2,
                py: 1,
                borderRadius: 2,
                bgcolor: turn.role === 'user' ? 'primary.main' : 'action.hover',
                color: turn.role === 'user' ? 'primary.contrastText' : 'text.primary',
              }}
            >
              <Typography sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{turn.content}</Typography>
              {turn.error && (
                <Alert severity="error" sx={{ mt: 1 }}>
                  {turn.error}
                </Alert>
              )}
              {turn.usage && (
                <Typography variant="caption" color="text.secondary" data-testid="playground-usage">
                  {t('user.playground.usage', {
                    prompt: turn.usage.prompt_tokens,
                    completion: turn.usage.completion_tokens,
                    cost: turn.quota === undefined ? '…' : formatQuota(turn.quota),
                  })}
                </Typography>
              )}
            </Box>
          ))}
          <div ref={endRef} />
        </Paper>
        <Stack
          direction="row"
          spacing={1}
          component="form"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <TextField
            fullWidth
            multiline
            maxRows={6}
            size="small"
            placeholder={t('user.playground.inputPlaceholder')}
            value={input}
            onChange={(e) => setInput(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                void send();
              }
            }}
            slotProps={{ htmlInput: { 'data-testid': 'playground-input' } }}
          />
          {abort ? (
            <Button
              variant="outlined"
              color="warning"
              startIcon={<StopCircleOutlined />}
              onClick={() => abort.abort()}
            >
              {t('user.playground.abort')}
            </Button>
          ) : (
            <Button
              type="submit"
              variant="contained"
              endIcon={<Send />}
              disabled={!input.trim() || !chosen || stopTooMany}
              data-testid="playground-send"
            >
              {t('user.playground.send')}
            </Button>
          )}
        </Stack>
      </Stack>
    </Box>
  );
}

/**
 * The playground (/playground and /panel/playground): a native streaming chat with the user's
 * playground token, plus a tab for each chat link opened with that key.
 */
export default function PlaygroundPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const location = useLocation();
  const site = useSiteInfo();
  const [tab, setTab] = useState(0);
  // Which key the playground chats with: the user's playground token (created on first use; its
  // spending comes out of the user's balance and shows in the logs under its name) or one of theirs.
  const [tokenId, setTokenId] = useState<number | 'playground'>('playground');
  const tokens = useTokenChoices(user !== null);
  const choices = (tokens.data?.data ?? []).filter(
    (tk) => tk.name !== PLAYGROUND_TOKEN && tk.status === TokenStatus.Enabled,
  );
  const key = usePlaygroundKey(tokenId, user !== null);
  const tokenName =
    tokenId === 'playground' ? PLAYGROUND_TOKEN : (choices.find((tk) => tk.id === tokenId)?.name ?? '');
  const links = visibleChatLinks(site.chat_links);
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  const server = serverAddress(site.server_address, window.location.origin);
  const link = tab > 0 ? links[tab - 1] : undefined;
  return (
    <Card sx={{ my: location.pathname.startsWith('/panel') ? 0 : 3 }}>
      <Tabs value={tab} onChange={(_, v: number) => setTab(v)} variant="scrollable" sx={{ px: 2 }}>
        <Tab label={t('user.playground.chatTab')} data-testid="playground-tab-chat" />
        {links.map((l) => (
          <Tab key={`${l.sort}-${l.name}`} label={l.name} />
        ))}
      </Tabs>
      <CardContent>
        <FormControl size="small" sx={{ mb: 2, minWidth: 240, maxWidth: '100%' }}>
          <InputLabel id="playground-token">{t('user.playground.token')}</InputLabel>
          <Select
            labelId="playground-token"
            label={t('user.playground.token')}
            value={String(tokenId)}
            onChange={(e) =>
              setTokenId(e.target.value === 'playground' ? 'playground' : Number(e.target.value))
            }
            data-testid="playground-token"
          >
            <MenuItem value="playground">{t('user.playground.playgroundToken')}</MenuItem>
            {choices.map((tk) => (
              <MenuItem key={tk.id} value={String(tk.id)}>
                {tk.name}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        {!key.data ? (
          <Typography color="text.secondary">
            {key.isError ? t('user.playground.noKey') : t('user.common.loading')}
          </Typography>
        ) : link ? (
          <Box
            component="iframe"
            title={link.name}
            src={fillChatLink(link.url, key.data, server)}
            sx={{ width: '100%', height: '70vh', border: 0, borderRadius: 1 }}
          />
        ) : (
          <NativeChat playgroundKey={key.data} tokenName={tokenName} />
        )}
      </CardContent>
    </Card>
  );
}
