import Box from '@mui/material/Box';
import { Outlet } from 'react-router';
import { LAYOUT } from '../theme';
import { PublicFooter } from './public-footer';
import { PublicTopBar } from './public-top-bar';

export function PublicLayout() {
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column', bgcolor: 'background.default' }}>
      <PublicTopBar />
      <Box
        component="main"
        sx={{
          flexGrow: 1,
          width: '100%',
          maxWidth: LAYOUT.publicContentMaxWidth,
          mx: 'auto',
          px: 2,
          py: { xs: 2, md: 4 },
        }}
      >
        <Outlet />
      </Box>
      <PublicFooter />
    </Box>
  );
}
