import { createTheme, type Theme } from '@mui/material/styles';

// Layout constants (one-hub's console sizes, so the layout looks familiar).
export const LAYOUT = {
  contentMaxWidth: 1400,
  publicContentMaxWidth: 1200,
  sidebarWidth: 260,
  avatarMenuMaxWidth: 350,
  topBarHeight: 64,
  topBarHeightSmall: 56,
  borderRadius: 12,
  /** Charts and grids measure themselves on resize; the sidebar animation needs this long to settle. */
  resizeAfterMenuChangeMs: 300,
} as const;

export const BREAKPOINTS = { xs: 0, sm: 600, md: 960, lg: 1280, xl: 1920 } as const;

export type ThemeMode = 'light' | 'dark';

export function isThemeMode(value: unknown): value is ThemeMode {
  return value === 'light' || value === 'dark';
}

const fontFamily = [
  'Inter',
  'Roboto',
  '"Helvetica Neue"',
  'Arial',
  '"PingFang SC"',
  '"Hiragino Sans"',
  '"Microsoft YaHei"',
  '"WenQuanYi Micro Hei"',
  'sans-serif',
].join(',');

export function createAppTheme(mode: ThemeMode): Theme {
  const dark = mode === 'dark';
  const base = createTheme({
    breakpoints: { values: BREAKPOINTS },
    shape: { borderRadius: LAYOUT.borderRadius },
    typography: { fontFamily, button: { textTransform: 'none', fontWeight: 600 } },
    palette: {
      mode,
      primary: { main: dark ? '#6ea8ff' : '#2f6fd6' },
      secondary: { main: dark ? '#b59cff' : '#6c4fd8' },
      background: dark ? { default: '#0f1522', paper: '#161e2e' } : { default: '#eef2f8', paper: '#ffffff' },
    },
  });
  return createTheme(base, {
    mixins: {
      toolbar: {
        minHeight: LAYOUT.topBarHeightSmall,
        [base.breakpoints.up('md')]: { minHeight: LAYOUT.topBarHeight },
      },
    },
    components: {
      MuiAppBar: { defaultProps: { elevation: 0, color: 'inherit' } },
      MuiCard: {
        defaultProps: { elevation: 0 },
        styleOverrides: { root: { border: `1px solid ${base.palette.divider}` } },
      },
      MuiListItemButton: { styleOverrides: { root: { borderRadius: LAYOUT.borderRadius, marginBottom: 2 } } },
    },
  });
}
