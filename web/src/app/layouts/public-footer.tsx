import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { PRODUCT_VERSION } from '@switchyard/domain';
import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import { MarkdownContent } from '../../components/markdown-content';
import { PRODUCT_LINKS } from '../../lib/product';
import { useSiteInfo } from '../../lib/site-info';
import { LAYOUT } from '../theme';

/** The footer: the administrator's footer HTML, else name, version, credits, source and licence. */
export function PublicFooter() {
  const { t } = useTranslation();
  const site = useSiteInfo();
  const version = (site.version || PRODUCT_VERSION).replace(/^v/i, '');
  return (
    <Box
      component="footer"
      sx={{
        borderTop: 1,
        borderColor: 'divider',
        py: 3,
        px: 2,
        color: 'text.secondary',
        textAlign: 'center',
      }}
      data-testid="footer"
    >
      <Box sx={{ maxWidth: LAYOUT.publicContentMaxWidth, mx: 'auto' }}>
        {site.footer_html ? (
          <MarkdownContent text={site.footer_html} html />
        ) : (
          <Typography variant="body2" component="div" sx={{ '& > *': { mx: 0.75 } }}>
            <span>
              {site.system_name || t('app.name')} v{version}
            </span>
            <span>·</span>
            <span>{t('footer.builtBy')}</span>
            <span>·</span>
            <span>
              {t('footer.basedOn')}{' '}
              {PRODUCT_LINKS.upstream.map((project, i) => (
                <Fragment key={project.name}>
                  {i > 0 && ', '}
                  <Link href={project.url} target="_blank" rel="noopener noreferrer">
                    {project.name}
                  </Link>
                </Fragment>
              ))}
            </span>
            <span>·</span>
            <Link href={PRODUCT_LINKS.source} target="_blank" rel="noopener noreferrer">
              {t('footer.source')}
            </Link>
            <span>·</span>
            <Link href={PRODUCT_LINKS.license} target="_blank" rel="noopener noreferrer">
              {t('footer.license')}
            </Link>
          </Typography>
        )}
      </Box>
    </Box>
  );
}
