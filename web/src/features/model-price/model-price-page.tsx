import Search from '@mui/icons-material/Search';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import FormControl from '@mui/material/FormControl';
import InputAdornment from '@mui/material/InputAdornment';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { PriceType, renderPrice } from '@switchyard/domain';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session-context';
import { OwnerIcon } from '../../components/owner-icon';
import { type UserGroupSummary, useModelOwners, useUserGroupMap } from '../site/api';
import { useAvailableModels } from './api';

function PriceCell({ ratio, perMillion }: { ratio: number; perMillion: boolean }) {
  const { t } = useTranslation();
  const shown = renderPrice(ratio, { perThousand: perMillion });
  if (shown === 'Free') return <Chip size="small" color="success" label={t('user.price.free')} />;
  return (
    <Box>
      <Typography variant="body2">{`$${shown.usd}`}</Typography>
      <Typography variant="caption" color="text.secondary">{`¥${shown.cny}`}</Typography>
    </Box>
  );
}

/**
 * "Available models" (/price and /panel/model_price): the models of one group with their owner,
 * type and prices at that group's ratio ("Free" for zero, else dollars and yuan), searchable and by
 * owner.
 */
export default function ModelPricePage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const { data: models } = useAvailableModels();
  const { data: groups } = useUserGroupMap();
  const { data: owners } = useModelOwners();
  const [group, setGroup] = useState('');
  const [search, setSearch] = useState('');
  const [owner, setOwner] = useState('');
  const [perMillion, setPerMillion] = useState(false);

  const groupList = useMemo(
    () =>
      (Object.values(groups ?? {}) as UserGroupSummary[]).sort(
        (a, b) => a.ratio - b.ratio || a.symbol.localeCompare(b.symbol),
      ),
    [groups],
  );
  const current = groupList.find((g) => g.symbol === group) ?? groupList[0];
  const iconOf = useMemo(() => new Map((owners ?? []).map((o) => [o.name, o.icon])), [owners]);
  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return Object.entries(models ?? {})
      .filter(([, m]) => !current || m.groups.includes(current.symbol))
      .filter(([name]) => needle === '' || name.toLowerCase().includes(needle))
      .filter(([, m]) => owner === '' || m.owned_by === owner);
  }, [models, current, search, owner]);
  const ownerNames = useMemo(
    () => [...new Set(Object.values(models ?? {}).map((m) => m.owned_by))].sort(),
    [models],
  );
  const ratio = current?.ratio ?? 1;

  return (
    <Stack spacing={2} sx={user ? undefined : { py: 4 }}>
      <Card variant="outlined" sx={{ p: 2 }}>
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'center' } }}>
          <FormControl size="small" sx={{ minWidth: 180 }}>
            <InputLabel id="price-group">{t('user.price.group')}</InputLabel>
            <Select
              labelId="price-group"
              label={t('user.price.group')}
              value={current?.symbol ?? ''}
              onChange={(e) => setGroup(e.target.value)}
              data-testid="price-group"
            >
              {groupList.map((g) => (
                <MenuItem key={g.symbol} value={g.symbol}>
                  {t('user.price.groupOption', { name: g.name || g.symbol, ratio: g.ratio })}
                </MenuItem>
              ))}
            </Select>
          </FormControl>
          <TextField
            size="small"
            label={t('user.price.search')}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            slotProps={{
              htmlInput: { 'data-testid': 'price-search' },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <Search fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          <FormControl size="small" sx={{ minWidth: 180 }}>
            <InputLabel id="price-owner">{t('user.price.owner')}</InputLabel>
            <Select
              labelId="price-owner"
              label={t('user.price.owner')}
              value={owner}
              onChange={(e) => setOwner(e.target.value)}
            >
              <MenuItem value="">{t('user.common.all')}</MenuItem>
              {ownerNames.map((name) => (
                <MenuItem key={name} value={name}>
                  {name}
                </MenuItem>
              ))}
            </Select>
          </FormControl>
          <Box sx={{ flex: 1 }} />
          <ToggleButtonGroup
            size="small"
            exclusive
            value={perMillion ? 'm' : 'k'}
            onChange={(_, v: 'k' | 'm' | null) => v && setPerMillion(v === 'm')}
          >
            <ToggleButton value="k">{t('user.price.perThousand')}</ToggleButton>
            <ToggleButton value="m">{t('user.price.perMillion')}</ToggleButton>
          </ToggleButtonGroup>
        </Stack>
      </Card>
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" data-testid="price-table">
          <TableHead>
            <TableRow>
              <TableCell sx={{ fontWeight: 600 }}>{t('user.price.model')}</TableCell>
              <TableCell sx={{ fontWeight: 600 }}>{t('user.price.owner')}</TableCell>
              <TableCell sx={{ fontWeight: 600 }}>{t('user.price.type')}</TableCell>
              <TableCell sx={{ fontWeight: 600 }}>{t('user.price.input')}</TableCell>
              <TableCell sx={{ fontWeight: 600 }}>{t('user.price.output')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.length === 0 ? (
              <TableRow>
                <TableCell colSpan={5} align="center" sx={{ py: 6, color: 'text.secondary' }}>
                  {models === undefined ? t('user.common.loading') : t('user.price.empty')}
                </TableCell>
              </TableRow>
            ) : (
              rows.map(([name, m]) => {
                const times = m.price.type === PriceType.Times;
                return (
                  <TableRow key={name} hover data-testid={`price-row-${name}`}>
                    <TableCell sx={{ fontFamily: 'monospace' }}>{name}</TableCell>
                    <TableCell>
                      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                        <OwnerIcon url={iconOf.get(m.owned_by) ?? ''} name={m.owned_by} />
                        <span>{m.owned_by}</span>
                      </Stack>
                    </TableCell>
                    <TableCell>
                      <Chip
                        size="small"
                        variant="outlined"
                        color={times ? 'secondary' : 'primary'}
                        label={times ? t('user.price.perCall') : t('user.price.perToken')}
                      />
                    </TableCell>
                    <TableCell>
                      <PriceCell ratio={m.price.input * ratio} perMillion={perMillion && !times} />
                    </TableCell>
                    <TableCell>
                      {times ? '—' : <PriceCell ratio={m.price.output * ratio} perMillion={perMillion} />}
                    </TableCell>
                  </TableRow>
                );
              })
            )}
          </TableBody>
        </Table>
      </TableContainer>
      <Typography variant="caption" color="text.secondary">
        {t(perMillion ? 'user.price.noteMillion' : 'user.price.noteThousand')}
      </Typography>
    </Stack>
  );
}
