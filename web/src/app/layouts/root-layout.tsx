import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigation } from 'react-router';
import { TopProgress } from '../../components/top-progress';
import { NoticeProvider } from '../../features/notice/notice-provider';
import { useSiteInfo } from '../../lib/site-info';

/** Around every screen: the announcement, the loading bar, scroll-to-top and the document title. */
export function RootLayout() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const navigation = useNavigation();
  const { pathname } = useLocation();

  // Every page change scrolls smoothly back to the top. The first screen is already there: asking
  // anyway forces a layout while it is being drawn.
  const firstPath = useRef(pathname);
  useEffect(() => {
    if (pathname === firstPath.current) return;
    firstPath.current = '';
    window.scrollTo({ top: 0, behavior: 'smooth' });
  }, [pathname]);

  const title = site.system_name || t('app.name');
  useEffect(() => {
    document.title = title;
  }, [title]);

  return (
    <NoticeProvider>
      {navigation.state !== 'idle' && <TopProgress />}
      <Outlet />
    </NoticeProvider>
  );
}
