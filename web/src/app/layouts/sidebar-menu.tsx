import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import Chip from '@mui/material/Chip';
import Collapse from '@mui/material/Collapse';
import Divider from '@mui/material/Divider';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import ListSubheader from '@mui/material/ListSubheader';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation } from 'react-router';
import { type MenuItem, menuTrail } from '../routes';

interface Props {
  items: readonly MenuItem[];
  /** Called after an item is chosen (the narrow-screen drawer closes). */
  onNavigate: () => void;
}

/** Renders the sidebar's groups; top-level entries must be groups. */
export function SidebarMenu({ items, onNavigate }: Props) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t('sidebar.navigation')} data-testid="sidebar-menu">
      {items.map((entry, i) =>
        entry.type === 'group' ? (
          (entry.children?.length ?? 0) > 0 && (
            <List
              key={entry.id}
              dense
              data-menu-group={entry.id}
              subheader={
                <ListSubheader
                  disableSticky
                  sx={{ bgcolor: 'transparent', lineHeight: '36px', fontWeight: 600 }}
                >
                  {t(entry.title)}
                </ListSubheader>
              }
              sx={{ px: 1.5 }}
            >
              {entry.children?.map((child) => (
                <MenuEntry key={child.id} entry={child} depth={0} onNavigate={onNavigate} />
              ))}
              {i < items.length - 1 && <Divider sx={{ mt: 1 }} />}
            </List>
          )
        ) : (
          <Typography key={entry.id} variant="body2" color="error" sx={{ px: 2 }}>
            {t('menu.topLevelError')}
          </Typography>
        ),
      )}
    </nav>
  );
}

function MenuEntry({ entry, depth, onNavigate }: { entry: MenuItem; depth: number; onNavigate: () => void }) {
  const { t } = useTranslation();
  if (entry.type === 'collapse') return <MenuCollapse entry={entry} depth={depth} onNavigate={onNavigate} />;
  if (entry.type === 'item') return <MenuLink entry={entry} depth={depth} onNavigate={onNavigate} />;
  return (
    <Typography variant="h6" color="error" align="center">
      {t('menu.itemsError')}
    </Typography>
  );
}

function EntryText({ entry }: { entry: MenuItem }) {
  const { t } = useTranslation();
  return (
    <>
      <ListItemText primary={t(entry.title)} secondary={entry.caption ? t(entry.caption) : undefined} />
      {entry.chip && <Chip size="small" color={entry.chip.color ?? 'primary'} label={t(entry.chip.label)} />}
    </>
  );
}

function MenuLink({ entry, depth, onNavigate }: { entry: MenuItem; depth: number; onNavigate: () => void }) {
  const { pathname } = useLocation();
  const Icon = entry.icon;
  const common = {
    disabled: entry.disabled,
    selected: pathname === entry.url,
    onClick: onNavigate,
    sx: { pl: 2 + depth * 2 },
    'data-menu-id': entry.id,
  };
  const content = (
    <>
      {Icon && (
        <ListItemIcon sx={{ minWidth: 36 }}>
          <Icon fontSize="small" />
        </ListItemIcon>
      )}
      <EntryText entry={entry} />
    </>
  );
  if (entry.external) {
    return (
      <ListItemButton
        component="a"
        href={entry.url}
        target={entry.target ? '_blank' : undefined}
        rel="noopener noreferrer"
        {...common}
      >
        {content}
      </ListItemButton>
    );
  }
  return (
    <ListItemButton component={RouterLink} to={entry.url ?? '#'} {...common}>
      {content}
    </ListItemButton>
  );
}

function MenuCollapse({
  entry,
  depth,
  onNavigate,
}: {
  entry: MenuItem;
  depth: number;
  onNavigate: () => void;
}) {
  const { pathname } = useLocation();
  const holdsCurrent = menuTrail(entry.children ?? [], pathname).length > 0;
  const [open, setOpen] = useState(holdsCurrent);
  // A collapse opens by itself when the current path is one of its children.
  useEffect(() => {
    if (holdsCurrent) setOpen(true);
  }, [holdsCurrent]);
  const Icon = entry.icon;
  return (
    <>
      <ListItemButton
        onClick={() => setOpen((o) => !o)}
        disabled={entry.disabled}
        sx={{ pl: 2 + depth * 2 }}
        aria-expanded={open}
        data-menu-id={entry.id}
      >
        {Icon && (
          <ListItemIcon sx={{ minWidth: 36 }}>
            <Icon fontSize="small" />
          </ListItemIcon>
        )}
        <EntryText entry={entry} />
        {open ? <ExpandLess fontSize="small" /> : <ExpandMore fontSize="small" />}
      </ListItemButton>
      <Collapse in={open} timeout="auto" unmountOnExit>
        <List dense disablePadding>
          {entry.children?.map((child) => (
            <MenuEntry key={child.id} entry={child} depth={depth + 1} onNavigate={onNavigate} />
          ))}
        </List>
      </Collapse>
    </>
  );
}
