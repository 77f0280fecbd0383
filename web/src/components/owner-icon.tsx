import SmartToyOutlined from '@mui/icons-material/SmartToyOutlined';
import Avatar from '@mui/material/Avatar';
import { useQuery } from '@tanstack/react-query';
import { IconCache, localIconStore } from '../lib/icon-cache';
import { bundledIcon } from '../lib/provider-icons';

/**
 * A model owner's icon: the bundled copy of a known brand icon, else (an address an administrator
 * entered) from the icon cache (50 entries, a week; 5 s fetch), with a bundled robot glyph while it
 * loads and whenever it cannot be had, so a page never waits on an icon service.
 */
export function OwnerIcon({ url, name, size = 28 }: { url: string; name: string; size?: number }) {
  const bundled = bundledIcon(url);
  const { data, isFetched } = useQuery({
    queryKey: ['owner-icon', url],
    queryFn: () => new IconCache(localIconStore()).get(url),
    enabled: url !== '' && bundled === undefined,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  // A service that refuses cross-origin reads can still serve the image itself; if that fails too
  // (offline), the Avatar shows the glyph.
  const src = bundled ?? data ?? (isFetched && /^https?:/.test(url) ? url : undefined);
  return (
    <Avatar
      src={src}
      alt={name}
      variant="rounded"
      sx={{
        width: size,
        height: size,
        bgcolor: src ? 'transparent' : 'action.selected',
        color: 'text.secondary',
      }}
    >
      <SmartToyOutlined sx={{ fontSize: size * 0.65 }} />
    </Avatar>
  );
}
